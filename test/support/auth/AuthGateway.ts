import { createServer, request } from "node:http"
import * as Effect from "effect/Effect"
import { freePort } from "../FreePort.js"

/**
 * What Supabase puts in front of its auth service (Kong, in the CLI's stack and the self-hosting
 * compose file): one address for every service, the auth service's requests under `/auth/v1`,
 * handed on with that prefix taken off. Applications talk to it (`createClient(gateway, key)`),
 * and the links in mails point at it, so a Supabase configuration is tried as it is deployed.
 */
export interface AuthGateway {
  /** Where applications reach the stack: `createClient(url, key)`. */
  readonly url: string
  readonly port: number
}

/** Listens on a free loopback port and forwards `/auth/v1/*` to `target`; anything else is 404. */
export const start = (target: () => URL) =>
  Effect.acquireRelease(
    Effect.flatMap(freePort, (port) =>
      Effect.async<{ readonly port: number; readonly close: () => void }>((resume) => {
        const server = createServer((incoming, outgoing) => {
          const path = incoming.url ?? "/"
          if (!(path === "/auth/v1" || path.startsWith("/auth/v1/") || path.startsWith("/auth/v1?"))) {
            outgoing.writeHead(404, { "content-type": "application/json" }).end('{"message":"no route"}')
            return
          }
          const upstream = target()
          const forwarded = request(
            {
              host: upstream.hostname,
              port: upstream.port,
              method: incoming.method,
              path: path.slice("/auth/v1".length) || "/",
              headers: incoming.headers
            },
            (answer) => {
              outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
              answer.pipe(outgoing)
            }
          )
          forwarded.on("error", () => {
            if (!outgoing.headersSent) outgoing.writeHead(502).end()
          })
          incoming.pipe(forwarded)
        })
        server.listen(port, "127.0.0.1", () => resume(Effect.succeed({ port, close: () => server.close() })))
      })
    ),
    ({ close }) => Effect.sync(close)
  ).pipe(Effect.map(({ port }): AuthGateway => ({ port, url: `http://127.0.0.1:${port}` })))
