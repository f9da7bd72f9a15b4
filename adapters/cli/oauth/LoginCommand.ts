import { spawn } from "node:child_process"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as client from "openid-client"
import * as Telemetry from "../../../application/Telemetry.js"
import { transportOf } from "../../idp/OAuthClient.js"
import * as LoopbackListener from "./LoopbackListener.js"

/**
 * `latchkey oauth login`: an example native client, like `gh auth login`. It logs in through
 * the built-in public CLI client with the authorization code flow, PKCE and a loopback redirect
 * (RFC 8252), proving that client works end to end. It is a client: it needs no database.
 */

export class LoginFailed extends Schema.TaggedError<LoginFailed>()("LoginFailed", {
  message: Schema.String
}) {}

/** How long the browser has to come back; after that the listener closes. */
const redirectTimeout = Duration.minutes(5)

/** The token response as printed (RFC 6749 §5.1); decoding drops anything else. */
export const Tokens = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.String,
  expires_in: Schema.optional(Schema.Number),
  refresh_token: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String)
})
export type Tokens = typeof Tokens.Type

/** An introspection response (RFC 7662 §2.2): `active` and whatever the server adds. */
export const Introspection = Schema.Struct(
  { active: Schema.Boolean },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type Introspection = typeof Introspection.Type

export interface LoginOptions {
  readonly issuer: string
  readonly clientId: string
  readonly scope: Option.Option<string>
  readonly resource: Option.Option<string>
  /** The resource server's shared secret; when present the new access token is introspected. */
  readonly introspectionSecret: Option.Option<Redacted.Redacted>
  /** Shows the user where to log in; the command prints and opens it, a test drives a browser. */
  readonly onAuthorizeUrl: (url: URL) => Effect.Effect<void>
}

export interface LoginResult {
  readonly tokens: Tokens
  readonly introspection: Option.Option<Introspection>
}

const hasCode = (value: unknown): value is { readonly code: string } =>
  typeof value === "object" && value !== null && "code" in value && typeof value.code === "string"

/** Why openid-client or fetch failed, in one line. */
const describe = (cause: unknown): string => {
  if (cause instanceof client.ResponseBodyError) {
    return `${cause.error}${cause.error_description === undefined ? "" : ` (${cause.error_description})`}`
  }
  if (cause instanceof client.ClientError) {
    // openid-client replaces oauth4webapi's precise message by a category; the cause has it.
    return cause.cause instanceof Error ? cause.cause.message : cause.message
  }
  if (cause instanceof TypeError && hasCode(cause.cause)) {
    // undici's "fetch failed", whose cause is the socket error (ECONNREFUSED, ENOTFOUND…).
    return `unreachable (${cause.cause.code})`
  }
  if (cause instanceof DOMException && cause.name === "TimeoutError") return "no answer in time"
  return cause instanceof Error ? cause.message : String(cause)
}

/** RFC 8414 discovery; plain http only on this machine, where nobody can read the tokens. */
const discover = Telemetry.fn("OAuthLogin.discover")((issuer: string, clientId: string) =>
  Effect.gen(function* () {
    const url = yield* Effect.try({
      try: () => new URL(issuer),
      catch: () => new LoginFailed({ message: `${issuer} is not a URL` })
    })
    const transport = transportOf(url)
    if (transport === "refused") {
      return yield* new LoginFailed({
        message: `${issuer}: an issuer must use https (plain http only on 127.0.0.1, [::1] or localhost)`
      })
    }
    return yield* Effect.tryPromise({
      try: () =>
        client.discovery(url, clientId, undefined, client.None(), {
          algorithm: "oauth2",
          ...(transport === "plain-http" ? { execute: [client.allowInsecureRequests] } : {})
        }),
      catch: (cause) => new LoginFailed({ message: `cannot discover ${issuer}: ${describe(cause)}` })
    })
  })
)

/**
 * RFC 6749 §4.1.2.1 allows printable ASCII in `error` and `error_description`; anyone can craft
 * the redirect, so anything else (a terminal escape sequence) is not echoed.
 */
const printable = (value: string) => value.replace(/[^\x20-\x7E]/g, "?")

/**
 * Reads the redirect (RFC 6749 §4.1.2, RFC 9207): state first, since nothing in a redirect we
 * did not ask for is worth reading; then the issuer, so a mix-up attack cannot make us send the
 * code to the wrong server; then the error the server may have sent instead of a code.
 */
const readRedirect = (
  url: URL,
  expected: { readonly state: string; readonly issuer: string; readonly issRequired: boolean }
): Option.Option<LoginFailed> => {
  const query = url.searchParams
  const failed = (message: string) => Option.some(new LoginFailed({ message }))
  if (query.get("state") !== expected.state) {
    return failed("the redirect's state does not match this login (a stale or forged redirect)")
  }
  const iss = query.get("iss")
  if (iss === null ? expected.issRequired : iss !== expected.issuer) {
    return failed(
      `the redirect names issuer ${iss === null ? "(none)" : printable(iss)}, expected ${expected.issuer}`
    )
  }
  const error = query.get("error")
  if (error !== null) {
    const description = query.get("error_description")
    return failed(
      `the server refused the login: ${printable(error)}${description === null ? "" : ` (${printable(description)})`}`
    )
  }
  if (query.get("code") === null) return failed("the redirect carries no code")
  return Option.none()
}

const introspect = Telemetry.fn("OAuthLogin.introspect")(
  (config: client.Configuration, token: string, secret: Redacted.Redacted) =>
    Effect.gen(function* () {
      const endpoint = config.serverMetadata().introspection_endpoint
      if (endpoint === undefined) {
        return yield* new LoginFailed({ message: "the server advertises no introspection endpoint" })
      }
      const body = yield* Effect.tryPromise({
        try: async () => {
          // Resource-server authentication, not client authentication: openid-client's
          // tokenIntrospection would authenticate as the (public) client, so plain fetch it is.
          const response = await fetch(endpoint, {
            method: "POST",
            headers: {
              authorization: `Bearer ${Redacted.value(secret)}`,
              "content-type": "application/x-www-form-urlencoded"
            },
            body: new URLSearchParams({ token }).toString(),
            signal: AbortSignal.timeout(30_000)
          })
          if (!response.ok) throw new Error(`HTTP ${response.status}`)
          const parsed: unknown = await response.json()
          return parsed
        },
        catch: (cause) => new LoginFailed({ message: `introspection failed: ${describe(cause)}` })
      })
      return yield* Schema.decodeUnknown(Introspection)(body).pipe(
        Effect.mapError(() => new LoginFailed({ message: "introspection answered without a boolean active" }))
      )
    })
)

/**
 * The whole login: discovery, loopback listener, authorization request (PKCE S256, state), the
 * redirect, the code exchange, and optionally introspection of the new access token.
 */
export const login = Telemetry.fn("OAuthLogin.login")(
  (options: LoginOptions) =>
    Effect.gen(function* () {
      const config = yield* discover(options.issuer, options.clientId)
      const metadata = config.serverMetadata()
      const state = client.randomState()
      const verifier = client.randomPKCECodeVerifier()
      const challenge = yield* Effect.promise(() => client.calculatePKCECodeChallenge(verifier))

      const redirected = yield* Deferred.make<URL, LoginFailed>()
      const listener = yield* LoopbackListener.listen((url) => {
        const problem = readRedirect(url, {
          state,
          issuer: metadata.issuer,
          issRequired: metadata.authorization_response_iss_parameter_supported === true
        })
        return Option.match(problem, {
          onNone: () =>
            Effect.as(Deferred.succeed(redirected, url), {
              ok: true,
              text: "You are logged in. You can close this window and return to the terminal."
            }),
          onSome: (error) =>
            Effect.as(Deferred.fail(redirected, error), {
              ok: false,
              text: `${error.message}. You can close this window.`
            })
        })
      })

      const authorizeUrl = yield* Effect.try({
        try: () =>
          client.buildAuthorizationUrl(config, {
            redirect_uri: listener.redirectUri,
            code_challenge: challenge,
            code_challenge_method: "S256",
            state,
            ...Option.match(options.scope, { onNone: () => ({}), onSome: (scope) => ({ scope }) }),
            ...Option.match(options.resource, { onNone: () => ({}), onSome: (resource) => ({ resource }) })
          }),
        catch: (cause) =>
          new LoginFailed({ message: `cannot build the authorization URL: ${describe(cause)}` })
      })
      yield* options.onAuthorizeUrl(authorizeUrl)

      const callbackUrl = yield* Deferred.await(redirected).pipe(
        Effect.timeoutFail({
          duration: redirectTimeout,
          onTimeout: () =>
            new LoginFailed({
              message: `no redirect reached ${listener.redirectUri} within ${Duration.format(redirectTimeout)}`
            })
        })
      )
      // openid-client checks state and iss again, then redeems the code with the verifier.
      const response = yield* Effect.tryPromise({
        try: () =>
          client.authorizationCodeGrant(config, callbackUrl, {
            pkceCodeVerifier: verifier,
            expectedState: state
          }),
        catch: (cause) => new LoginFailed({ message: `the token request failed: ${describe(cause)}` })
      })
      const tokens = yield* Schema.decodeUnknown(Tokens)(response).pipe(
        Effect.mapError(() => new LoginFailed({ message: "the token response is malformed" }))
      )
      const introspection = yield* Option.match(options.introspectionSecret, {
        onNone: () => Effect.succeedNone,
        onSome: (secret) => Effect.asSome(introspect(config, tokens.access_token, secret))
      })
      return { tokens, introspection } satisfies LoginResult
    }).pipe(Effect.scoped),
  (options) => ({ issuer: options.issuer, "client.id": options.clientId })
)

/** A browser can only open where there is a display; elsewhere the printed URL is enough. */
const hasDisplay = () =>
  process.platform === "darwin" ||
  process.platform === "win32" ||
  process.env.DISPLAY !== undefined ||
  process.env.WAYLAND_DISPLAY !== undefined

/** Best effort: the URL is printed anyway, so a missing opener is not an error. */
const openInBrowser = (url: URL) =>
  Effect.sync(() => {
    const [command, args, verbatim] =
      process.platform === "darwin"
        ? ["open", [url.href], false]
        : process.platform === "win32"
          ? // start takes its first quoted argument as a window title; the quotes keep cmd from
            // reading the query's `&` as a command separator.
            ["cmd", ["/c", "start", '""', `"${url.href}"`], true]
          : ["xdg-open", [url.href], false]
    try {
      spawn(command, args, { stdio: "ignore", detached: true, windowsVerbatimArguments: verbatim })
        .on("error", () => {})
        .unref()
    } catch {
      // spawn can also throw synchronously (e.g. EACCES); the printed URL still works.
    }
  })

const issuer = Options.text("issuer").pipe(
  Options.withPseudoName("URL"),
  Options.withDescription("The authorization server's issuer URL (https, or http on loopback)")
)
const clientId = Options.text("client-id").pipe(
  Options.withPseudoName("ID"),
  Options.withDefault("cli"),
  Options.withDescription("The public client to log in with (the built-in CLI client by default)")
)
const scope = Options.text("scope").pipe(
  Options.withPseudoName("SCOPES"),
  Options.optional,
  Options.withDescription("The scopes to request, separated by spaces")
)
const resource = Options.text("resource").pipe(
  Options.withPseudoName("URI"),
  Options.optional,
  Options.withDescription("The resource (RFC 8707) the access token is for")
)
const introspectionSecretEnv = Options.text("introspection-secret-env").pipe(
  Options.withPseudoName("VARIABLE"),
  Options.optional,
  Options.withDescription(
    "Introspect the new token with the resource-server secret in this environment variable"
  )
)
const noOpen = Options.boolean("no-open").pipe(
  Options.withDescription("Only print the authorization URL; do not open a browser")
)

export const command = Command.make(
  "login",
  { issuer, clientId, scope, resource, introspectionSecretEnv, noOpen },
  (options) =>
    Effect.gen(function* () {
      // Read before the browser round trip, so a missing variable fails at once.
      const introspectionSecret = yield* Option.match(options.introspectionSecretEnv, {
        onNone: () => Effect.succeedNone,
        onSome: (variable) =>
          Config.redacted(variable).pipe(
            Effect.asSome,
            // Effect redacts even a Config.redacted's "missing" message; say it plainly.
            Effect.mapError(
              () => new LoginFailed({ message: `${variable} is not set (--introspection-secret-env)` })
            )
          )
      })
      const result = yield* login({
        issuer: options.issuer,
        clientId: options.clientId,
        scope: options.scope,
        resource: options.resource,
        introspectionSecret,
        onAuthorizeUrl: (url) =>
          Effect.gen(function* () {
            // Instructions on stderr: stdout carries only the JSON result.
            yield* Console.error(`Open this URL in a browser to log in:\n\n  ${url.href}\n`)
            if (!options.noOpen && hasDisplay()) yield* openInBrowser(url)
            yield* Console.error(`Waiting for the redirect (${Duration.format(redirectTimeout)})…`)
          })
      })
      yield* Console.log(
        JSON.stringify(
          {
            ...result.tokens,
            ...Option.match(result.introspection, {
              onNone: () => ({}),
              onSome: (introspection) => ({ introspection })
            })
          },
          null,
          2
        )
      )
    })
).pipe(Command.withDescription("Log in through a public client in the browser and print the tokens."))
