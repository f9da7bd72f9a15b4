import type { IncomingHttpHeaders } from "node:http"
import { createServer } from "node:http"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose"

/**
 * A local stand-in for an external identity provider, on 127.0.0.1: each route answers as the
 * provider's documentation shapes it (token responses, JSON APIs, error bodies), and every
 * request is recorded for the test to check what was sent. Providers are pointed at it with
 * `Credentials.endpointOrigin` (or their configurable URL), so paths are the real ones.
 */

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** The body read as a form, for token requests. */
  readonly form: URLSearchParams
}

export interface Reply {
  readonly status?: number
  readonly json?: unknown
  readonly text?: string
  readonly contentType?: string
}

/** Answers one request; routes are keyed `"<METHOD> <path>"`. */
export type Route = (request: Recorded) => Reply | Promise<Reply>

export interface FakeProvider {
  readonly origin: URL
  readonly requests: Array<Recorded>
  /** Routes may be added or replaced while the server runs. */
  readonly routes: Map<string, Route>
  /** An ID token signed with the fake's key (RS256), as a provider's token endpoint returns it. */
  readonly idToken: (claims: JWTPayload) => Promise<string>
  /** The public half of that key, for a discovery document's `jwks_uri`. */
  readonly jwks: { readonly keys: ReadonlyArray<Record<string, unknown>> }
  /** The requests made to one route. */
  readonly sent: (route: string) => ReadonlyArray<Recorded>
}

const read = (stream: NodeJS.ReadableStream): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    stream.on("data", (chunk: Buffer) => chunks.push(chunk))
    stream.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    stream.on("error", reject)
  })

export const start = (
  routes: Readonly<Record<string, Route>> = {}
): Effect.Effect<FakeProvider, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { privateKey, publicKey } = yield* Effect.promise(() => generateKeyPair("RS256"))
    const publicJwk = yield* Effect.promise(() => exportJWK(publicKey))
    const table = new Map<string, Route>(Object.entries(routes))
    const requests: Array<Recorded> = []

    const server = createServer((req, res) => {
      void (async () => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1")
        const body = await read(req)
        const recorded: Recorded = {
          method: req.method ?? "GET",
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body,
          form: new URLSearchParams(body)
        }
        requests.push(recorded)
        const route = table.get(`${recorded.method} ${recorded.path}`)
        const reply: Reply =
          route === undefined ? { status: 404, json: { error: "not_found" } } : await route(recorded)
        const text = reply.text ?? JSON.stringify(reply.json ?? {})
        res.writeHead(reply.status ?? 200, {
          "content-type": reply.contentType ?? (reply.text === undefined ? "application/json" : "text/plain"),
          "cache-control": "no-store"
        })
        res.end(text)
      })().catch(() => {
        res.writeHead(500)
        res.end()
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    return {
      origin: new URL(`http://127.0.0.1:${port}`),
      requests,
      routes: table,
      idToken: (claims) => sign(privateKey, claims),
      jwks: { keys: [{ ...publicJwk, alg: "RS256", use: "sig", kid: "fake" }] },
      sent: (route) => requests.filter((request) => `${request.method} ${request.path}` === route)
    }
  })

const sign = (key: CryptoKey, claims: JWTPayload) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: "fake" })
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(key)
