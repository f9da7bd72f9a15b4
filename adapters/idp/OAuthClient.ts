import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as client from "openid-client"
import {
  UpstreamLoginFailed,
  type UpstreamRequest
} from "../../application/ports/UpstreamIdentityProvider.js"
import * as GuardedFetch from "../outbound/GuardedFetch.js"
import * as PrivateAddresses from "../outbound/PrivateAddresses.js"
import type { Credentials } from "./ProviderEntry.js"
import * as UpstreamFailure from "./UpstreamFailure.js"

/** The openid-client plumbing every upstream shares, OpenID or plain OAuth 2.0. */

/** Seconds before a request to the upstream is abandoned; a login page should not hang. */
export const timeout = 10

const loopbackHosts: ReadonlySet<string> = new Set(["127.0.0.1", "[::1]", "localhost"])

/**
 * https, or plain http where it can work: on this machine, or anywhere once the operator allows
 * private addresses. This is only the first check, made at start-up without any network call:
 * every call then goes through the outbound guard (`guardedFetch`), which takes plain http only
 * to the private addresses the operator lists, so neither our client secret nor the user's
 * tokens cross the internet in the clear. A loopback issuer without that list passes here, is
 * warned of at start and refused at the first login.
 */
export const transportOf = (
  url: URL,
  allowed: PrivateAddresses.AllowList = PrivateAddresses.none
): "https" | "plain-http" | "refused" =>
  url.protocol === "https:"
    ? "https"
    : url.protocol === "http:" && (loopbackHosts.has(url.hostname) || !PrivateAddresses.isEmpty(allowed))
      ? "plain-http"
      : "refused"

/**
 * How a provider's address is called: https, or plain http, which only the outbound guard
 * decides on at each call (it takes plain http to the private addresses the operator lists
 * alone, so neither our client secret nor the user's tokens cross the internet in the clear).
 * Supabase Auth starts with a plain-http provider address wherever it points, so this service
 * does too; a start-up warning names the variable that would let it through (OutboundReach).
 * Any other scheme cannot be called at all. `what` names the address in the message.
 */
export const checkTransport = (
  provider: string,
  what: string,
  url: URL
): Effect.Effect<"https" | "plain-http", UpstreamLoginFailed> =>
  url.protocol === "https:"
    ? Effect.succeed("https")
    : url.protocol === "http:"
      ? Effect.succeed("plain-http")
      : Effect.fail(
          new UpstreamLoginFailed({
            message: `The ${provider} provider's ${what} must be an http or https URL: ${url.href}`
          })
        )

/**
 * The outbound guard as openid-client's `customFetch`: every call to a provider (discovery,
 * keys, tokens, user info, APIs) is checked for its scheme and addresses, pinned, and bounded
 * in time and size, since an issuer or instance URL names a host someone else resolves.
 */
export const guardedFetch = (credentials: Credentials): GuardedFetch.Fetch =>
  GuardedFetch.makeFetch(guardOptions(credentials))

/** The guard's options for a provider's calls that do not go through openid-client. */
export const guardOptions = (credentials: Credentials): GuardedFetch.Options => ({
  timeout: Duration.seconds(timeout),
  ...(credentials.allowedPrivateAddresses === undefined
    ? {}
    : { allowedPrivateAddresses: credentials.allowedPrivateAddresses })
})

/**
 * `url` at `origin` instead, path and query kept: how a provider's fixed endpoints move to a
 * local fake of it (`Credentials.endpointOrigin`). Without an origin, `url` itself.
 */
export const relocate = (url: string | URL, origin: URL | undefined): URL => {
  const moved = new URL(url)
  if (origin !== undefined) {
    moved.protocol = origin.protocol
    moved.host = origin.host
  }
  return moved
}

/** How a provider wants our client secret on its token endpoint, as its documentation says. */
export type ClientAuthentication = "client_secret_basic" | "client_secret_post"

/** Query escaping as Go's `url.QueryEscape` does it: `-`, `_`, `.` and `~` stay as they are. */
const queryEscape = (value: string): string => encodeURIComponent(value).replace(/%20/g, "+")

/**
 * HTTP Basic client authentication with the id and secret escaped the way Supabase Auth's
 * client sends them. openid-client escapes every non-alphanumeric character (`-` as `%2D`), as
 * RFC 6749 §2.3.1 reads, which providers that do not unescape (Discord, Spotify…) refuse for
 * secrets holding such characters.
 */
export const clientSecretBasic =
  (clientId: string, secret: string): client.ClientAuth =>
  (_server, _client, _body, headers) => {
    headers.set(
      "authorization",
      `Basic ${Buffer.from(`${queryEscape(clientId)}:${queryEscape(secret)}`).toString("base64")}`
    )
  }

export const clientAuthentication = (
  method: ClientAuthentication,
  clientId: string,
  secret: string
): client.ClientAuth =>
  method === "client_secret_post" ? client.ClientSecretPost(secret) : clientSecretBasic(clientId, secret)

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const isJsonObject = Schema.is(JsonObject)

/**
 * Token responses as OAuth 2.0 (RFC 6749 §5) shapes them, for providers that stray from it and
 * that oauth4webapi would otherwise refuse: an error sent with HTTP 200 (GitHub's
 * `{"error": …}`, Slack's `{"ok": false, "error": …}`), an error object instead of a code
 * (Facebook's `{"error": {"type": …}}`), no `token_type` (WorkOS, Figma), `scope` as an array
 * (Twitch). A conforming response passes unchanged.
 */
export const conformTokenResponse = (status: number, body: Readonly<Record<string, unknown>>) => {
  const error = body.error
  if (isJsonObject(error)) {
    const code =
      typeof error.type === "string" ? error.type : typeof error.code === "string" ? error.code : "error"
    return { status: Math.max(status, 400), body: { error: code } }
  }
  if (typeof error === "string" && (status < 400 || body.access_token === undefined)) {
    return { status: Math.max(status, 400), body: { error } }
  }
  return {
    status,
    body: {
      ...body,
      ...(body.token_type === undefined ? { token_type: "bearer" } : {}),
      ...(Array.isArray(body.scope) ? { scope: body.scope.join(" ") } : {})
    }
  }
}

const isJsonResponse = (response: Response) =>
  (response.headers.get("content-type") ?? "").toLowerCase().includes("json")

/**
 * A guarded `fetch` (`guardedFetch`) that passes the token endpoint's answers through
 * `conformTokenResponse`.
 */
const conformingFetch =
  (tokenEndpoint: string, guarded: GuardedFetch.Fetch): client.CustomFetch =>
  async (url, options) => {
    const init: RequestInit = { method: options.method, headers: options.headers, redirect: options.redirect }
    if (options.body !== undefined) init.body = options.body
    if (options.signal !== undefined) init.signal = options.signal
    const response = await guarded(url, init)
    if (url !== tokenEndpoint || !isJsonResponse(response)) return response
    const body: unknown = await response.json()
    if (!isJsonObject(body)) {
      return new Response(JSON.stringify(body), { status: response.status, headers: response.headers })
    }
    const conformed = conformTokenResponse(response.status, body)
    return new Response(JSON.stringify(conformed.body), {
      status: conformed.status,
      headers: { "content-type": "application/json" }
    })
  }

/**
 * A client of a provider at known endpoints (no discovery), calling out through the guard. Plain
 * http is allowed where `transportOf` allows it, and the guard then decides each call.
 */
export const configuration = (
  provider: string,
  server: client.ServerMetadata,
  credentials: Credentials,
  authentication: ClientAuthentication
): Effect.Effect<client.Configuration, UpstreamLoginFailed> =>
  Effect.gen(function* () {
    const endpoints = [server.authorization_endpoint, server.token_endpoint, server.userinfo_endpoint]
    let insecure = false
    for (const endpoint of endpoints) {
      if (endpoint === undefined) continue
      const transport = yield* checkTransport(provider, "endpoint", new URL(endpoint))
      insecure = insecure || transport === "plain-http"
    }
    const secret = Redacted.value(credentials.clientSecret)
    const config = new client.Configuration(
      server,
      credentials.clientId,
      secret,
      clientAuthentication(authentication, credentials.clientId, secret)
    )
    config.timeout = timeout
    const guarded = guardedFetch(credentials)
    config[client.customFetch] =
      server.token_endpoint === undefined ? guarded : conformingFetch(server.token_endpoint, guarded)
    if (insecure) client.allowInsecureRequests(config)
    return config
  })

/** What a provider supports on the way out, beyond `response_type=code`. */
export interface AuthorizationOptions {
  readonly scope: ReadonlyArray<string>
  readonly pkce: boolean
  readonly nonce: boolean
  /** Fixed parameters of the provider (Apple's `response_mode`, Notion's `owner`). */
  readonly parameters?: Readonly<Record<string, string>>
}

/** The provider's scopes, then the extra ones asked for, each once, space-separated. */
export const scopeOf = (defaults: ReadonlyArray<string>, request: UpstreamRequest): string =>
  [...new Set([...defaults, ...(request.extraScopes ?? [])])].join(" ")

export const authorizationUrl = (
  config: client.Configuration,
  request: UpstreamRequest,
  options: AuthorizationOptions
): Effect.Effect<URL, UpstreamLoginFailed> =>
  Effect.tryPromise({
    try: async () => {
      const scope = scopeOf(options.scope, request)
      return client.buildAuthorizationUrl(config, {
        // Pass-through parameters first: what we set ourselves can never be overridden.
        ...request.parameters,
        ...options.parameters,
        ...(scope === "" ? {} : { scope }),
        redirect_uri: request.redirectUri,
        state: request.state,
        ...(options.nonce ? { nonce: request.nonce } : {}),
        ...(options.pkce
          ? {
              code_challenge: await client.calculatePKCECodeChallenge(request.codeVerifier),
              code_challenge_method: "S256"
            }
          : {})
      })
    },
    catch: UpstreamFailure.failed("Could not build the upstream authorization URL")
  })

/**
 * The callback as the upstream addressed it: our registered redirect URI with the query the
 * browser brought. openid-client sends the URL without its query as `redirect_uri` to the token
 * endpoint, and it must equal the one we sent to the authorization endpoint, even when the
 * request reached us under another name (a proxy, a load balancer).
 */
const callbackAt = (callbackUrl: URL, request: UpstreamRequest): URL => {
  const current = new URL(request.redirectUri)
  current.search = callbackUrl.search
  current.hash = ""
  return current
}

/**
 * Checks the callback (issuer, state, error) and redeems the code, with our PKCE verifier where
 * the provider takes one; with `expectedNonce` also requires and verifies an ID token.
 */
export const codeGrant = (
  config: client.Configuration,
  callbackUrl: URL,
  request: UpstreamRequest,
  checks: { readonly pkce: boolean; readonly expectedNonce?: string | undefined },
  context: string
) =>
  Effect.tryPromise({
    try: () =>
      client.authorizationCodeGrant(config, callbackAt(callbackUrl, request), {
        ...(checks.expectedNonce === undefined ? {} : { expectedNonce: checks.expectedNonce }),
        expectedState: request.state,
        ...(checks.pkce ? { pkceCodeVerifier: request.codeVerifier } : {})
      }),
    catch: UpstreamFailure.failed(context)
  })

/** The provider's own tokens, handed to the application as `provider_token` / `provider_refresh_token`. */
export const providerTokens = (tokens: {
  readonly access_token: string
  readonly refresh_token?: string
}) => ({
  accessToken: Redacted.make(tokens.access_token),
  refreshToken: Option.map(Option.fromNullable(tokens.refresh_token), Redacted.make)
})
