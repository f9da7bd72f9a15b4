import { createHash, randomBytes, randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { exportJWK, generateKeyPair } from "jose"
import type { Account, Configuration, default as Provider } from "oidc-provider"
import * as Telemetry from "../../application/Telemetry.js"
import * as BoundedCache from "../BoundedCache.js"
import * as Html from "../http/Html.js"
import * as DevUpstreamStorage from "./DevUpstreamStorage.js"

/**
 * An OpenID provider for development and end-to-end tests (oidc-provider): a login form where
 * any email signs in, no consent screen, PKCE (S256) required, keys made at start and kept in
 * memory. It is the `oidc` provider's upstream on a loopback issuer.
 */

export class DevUpstreamFailed extends Schema.TaggedError<DevUpstreamFailed>()("DevUpstreamFailed", {
  message: Schema.String
}) {}

/** A client registered at the dev upstream, in oidc-provider's (RFC 7591) field names. */
export interface DevClient {
  readonly client_id: string
  readonly client_secret: string
  readonly redirect_uris: ReadonlyArray<string>
}

export interface StartOptions {
  /** 0 or absent: an ephemeral port. */
  readonly port?: number
  /** Loopback only: the dev upstream signs anyone in, so it must not be reachable from elsewhere. */
  readonly host: "127.0.0.1"
  readonly clients: ReadonlyArray<DevClient>
  /**
   * `true` keeps `email` and `name` out of the ID token, for the userinfo endpoint only, as
   * oidc-provider does by default and some real providers do. Default `false`: every claim in
   * the ID token, as Google does.
   */
  readonly conformIdTokenClaims?: boolean
  /**
   * Serve the endpoints at a Keycloak realm's paths (`/protocol/openid-connect/auth`, …), so
   * that the `keycloak` provider, which addresses them without discovery, can sign in here.
   */
  readonly keycloakPaths?: boolean
  /**
   * A Keycloak realm's name: the issuer is `http://127.0.0.1:PORT/realms/<realm>` and every
   * endpoint is served under that path, as Keycloak serves a realm (with `keycloakPaths`, at its
   * very paths). Absent: the issuer is the origin.
   */
  readonly realm?: string
}

export interface DevUpstream {
  readonly issuer: URL
}

/** The subject of the account an email signs in to: stable, and not the address itself. */
export const subjectOf = (email: string): string =>
  createHash("sha256").update(email.trim().toLowerCase()).digest("base64url")

const nameOf = (email: string): string => email.split("@")[0] || email

const page = (title: string, body: string): string =>
  `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${Html.escapeText(title)}</title></head>
<body>
<h1>${Html.escapeText(title)}</h1>
${body}
</body>
</html>
`

const loginForm = (base: string, uid: string, problem?: string): string =>
  page(
    "Sign in to the development upstream",
    `<p>Any email address signs in; there is no password. For development only.</p>
${problem === undefined ? "" : `<p role="alert">${Html.escapeText(problem)}</p>`}
<form method="post" action="${Html.escapeText(base)}/interaction/${encodeURIComponent(uid)}">
<label>Email <input type="email" name="email" required autofocus></label>
<button type="submit">Sign in</button>
</form>`
  )

const send = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'"
  })
  res.end(body)
}

/** A login form is one short field; anything longer is not one. */
const maxBody = 4096

const readForm = (req: IncomingMessage): Promise<URLSearchParams> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBody) {
        reject(new Error("form too large"))
        req.destroy()
      } else chunks.push(chunk)
    })
    req.on("end", () => resolve(new URLSearchParams(Buffer.concat(chunks).toString("utf8"))))
    req.on("error", reject)
  })

/**
 * Who signed in with which email, by subject, so that tokens issued later can name them. Any
 * visitor can sign in with any address; past `maxAccounts` the least recently used is
 * forgotten, and its tokens then name no one until it signs in again.
 */
type Accounts = BoundedCache.BoundedCache<string, string>

/** As many as the storage's entries (DevUpstreamStorage): more than development ever sees. */
const maxAccounts = 10_000

const interactionPath = /^\/interaction\/[A-Za-z0-9_-]+$/

/**
 * Serves `/interaction/:uid` (our login form); everything else is oidc-provider's. Under a
 * realm (`base`), only paths under it are served, each handed on without it: oidc-provider then
 * finds the prefix in `originalUrl` and puts it in every URL it makes.
 */
const handler = (provider: Provider, accounts: Accounts, base: string) => {
  const oidc = provider.callback()

  const interaction = async (req: IncomingMessage, res: ServerResponse) => {
    // Reads the interaction from its cookie; it throws when the cookie is missing or expired.
    const details = await provider.interactionDetails(req, res).catch(() => undefined)
    if (details === undefined) {
      return send(res, 400, page("Sign-in expired", "<p>Start the login again from the application.</p>"))
    }
    // Consent is granted by `loadExistingGrant`, so login is the only prompt that comes here.
    if (details.prompt.name !== "login") {
      return send(res, 400, page("Unexpected prompt", `<p>${Html.escapeText(details.prompt.name)}</p>`))
    }
    if (req.method === "GET") return send(res, 200, loginForm(base, details.uid))
    if (req.method !== "POST") return send(res, 405, page("Method not allowed", ""))
    const email = (await readForm(req)).get("email")?.trim() ?? ""
    if (!email.includes("@")) return send(res, 400, loginForm(base, details.uid, "Enter an email address."))
    const accountId = subjectOf(email)
    accounts.set(accountId, email)
    await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false })
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? "/"
    if (base !== "") {
      if (url !== base && !url.startsWith(`${base}/`) && !url.startsWith(`${base}?`)) {
        return send(res, 404, page("Not found", ""))
      }
      Object.assign(req, { originalUrl: url })
      req.url = url.slice(base.length) === "" ? "/" : url.slice(base.length)
    }
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname
    if (!interactionPath.test(path)) return void oidc(req, res)
    interaction(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, page("Sign-in failed", "<p>Start the login again.</p>"))
      else res.destroy()
    })
  }
}

const configuration = (
  options: StartOptions,
  signingKey: Record<string, unknown>,
  accounts: Accounts,
  base: string
): Configuration => ({
  adapter: DevUpstreamStorage.make(),
  clients: options.clients.map((client) => ({
    client_id: client.client_id,
    client_secret: client.client_secret,
    redirect_uris: [...client.redirect_uris],
    grant_types: ["authorization_code"],
    response_types: ["code"],
    token_endpoint_auth_method: "client_secret_basic"
  })),
  claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
  scopes: ["openid", "email", "profile"],
  conformIdTokenClaims: options.conformIdTokenClaims ?? false,
  ...(options.keycloakPaths === true
    ? {
        routes: {
          authorization: "/protocol/openid-connect/auth",
          token: "/protocol/openid-connect/token",
          userinfo: "/protocol/openid-connect/userinfo",
          jwks: "/protocol/openid-connect/certs",
          end_session: "/protocol/openid-connect/logout"
        }
      }
    : {}),
  cookies: { keys: [randomBytes(32).toString("base64url")] },
  features: { devInteractions: { enabled: false } },
  interactions: { url: (_ctx, interaction) => `${base}/interaction/${interaction.uid}` },
  jwks: { keys: [signingKey] },
  pkce: { required: () => true },
  // No consent screen: the grant is made (or widened) to whatever the client asks for, as a
  // first-party provider would. oidc-provider calls this once the user has logged in.
  loadExistingGrant: async (ctx) => {
    const { client, session, provider } = ctx.oidc
    const accountId = session?.accountId
    if (client === undefined || session === undefined || accountId === undefined) return undefined
    const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId)
    const existing = grantId === undefined ? undefined : await provider.Grant.find(grantId)
    const grant =
      existing !== undefined && existing.accountId === accountId && existing.clientId === client.clientId
        ? existing
        : new provider.Grant({ accountId, clientId: client.clientId })
    grant.addOIDCScope(ctx.oidc.requestParamOIDCScopes)
    grant.addOIDCClaims(ctx.oidc.requestParamClaims)
    await grant.save()
    return grant
  },
  findAccount: (_ctx, sub): Account | undefined => {
    const email = accounts.get(sub)
    return email === undefined
      ? undefined
      : { accountId: sub, claims: () => ({ sub, email, email_verified: true, name: nameOf(email) }) }
  },
  renderError: (ctx, out) => {
    ctx.type = "html"
    ctx.body = page(
      "Error",
      `<p>${Html.escapeText(out.error)}: ${Html.escapeText(out.error_description ?? "")}</p>`
    )
  },
  // Explicit lifetimes, short as befits a development server (and oidc-provider asks for them).
  ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 }
})

const listen = (port: number) =>
  Effect.async<Server, DevUpstreamFailed>((resume) => {
    const server = createServer()
    const onError = (error: Error) =>
      resume(
        Effect.fail(new DevUpstreamFailed({ message: `The dev upstream cannot listen: ${error.message}` }))
      )
    server.once("error", onError)
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError)
      resume(Effect.succeed(server))
    })
  })

const close = (server: Server) =>
  Effect.async<void>((resume) => {
    server.close(() => resume(Effect.void))
    // Browsers and fetch keep connections alive; close() alone would wait for them.
    server.closeAllConnections()
  })

/** Starts the dev upstream on 127.0.0.1; it stops when the scope closes. */
export const start = Telemetry.fn("DevUpstream.start")(
  (options: StartOptions): Effect.Effect<DevUpstream, DevUpstreamFailed, Scope.Scope> =>
    Effect.gen(function* () {
      // The type already says so; this holds for callers that bypass it (JavaScript, casts).
      if (options.host !== "127.0.0.1") {
        return yield* new DevUpstreamFailed({ message: "The dev upstream binds 127.0.0.1 and nothing else" })
      }
      const port = options.port ?? 0
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        return yield* new DevUpstreamFailed({ message: `Not a port: ${port}` })
      }
      // Loaded here, not at the top: importing oidc-provider prints a runtime notice, which
      // production processes that never start a dev upstream should not show.
      const { default: ProviderClass } = yield* Effect.tryPromise({
        try: () => import("oidc-provider"),
        catch: () => new DevUpstreamFailed({ message: "oidc-provider could not be loaded" })
      })
      const signingKey = yield* Effect.tryPromise({
        try: async () => {
          const { privateKey } = await generateKeyPair("RS256", { extractable: true })
          return { ...(await exportJWK(privateKey)), alg: "RS256", use: "sig", kid: randomUUID() }
        },
        catch: () => new DevUpstreamFailed({ message: "The dev upstream could not make its signing key" })
      })
      const server = yield* Effect.acquireRelease(listen(port), close)
      const address = server.address()
      if (address === null || typeof address === "string") {
        return yield* new DevUpstreamFailed({ message: "The dev upstream is not on a TCP port" })
      }
      const base = options.realm === undefined ? "" : `/realms/${encodeURIComponent(options.realm)}`
      const issuer = new URL(`http://127.0.0.1:${address.port}${base}`)
      const accounts: Accounts = BoundedCache.make({ maxEntries: maxAccounts })
      const provider = new ProviderClass(
        `${issuer.origin}${base}`,
        configuration(options, signingKey, accounts, base)
      )
      server.on("request", handler(provider, accounts, base))
      yield* Telemetry.annotate("upstream.issuer", issuer.href)
      return { issuer }
    })
)
