import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import * as Effect from "effect/Effect"

/**
 * A plain-http server on a loopback address that records every TCP connection and request it
 * gets, for tests of the outbound guard: a server the guard must not reach shows it was not
 * reached by `connections()` staying at zero.
 */

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

export type Handler = (request: Recorded, response: ServerResponse) => void

export interface RecordingServer {
  /** `http://HOST:PORT` */
  readonly origin: string
  /** `HOST:PORT`, as the guard's loopback allow-list wants it. */
  readonly hostPort: string
  readonly port: number
  /** TCP connections accepted so far. */
  readonly connections: () => number
  /** Requests so far, oldest first. */
  readonly requests: () => ReadonlyArray<Recorded>
}

/**
 * Serves `routes` (by path without the query; unknown paths answer 404) on `host` and `port`
 * (0: any free port) until the scope closes.
 */
export const start = (
  routes: Readonly<Record<string, Handler>>,
  listen: { readonly host?: string; readonly port?: number } = {}
) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: ReturnType<typeof createServer>; readonly api: RecordingServer }, Error>(
      (resume) => {
        const host = listen.host ?? "127.0.0.1"
        const requests: Array<Recorded> = []
        let connections = 0
        const server = createServer((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            const recorded: Recorded = {
              method: request.method ?? "",
              path: request.url ?? "/",
              headers: request.headers,
              body: Buffer.concat(chunks).toString("utf8")
            }
            requests.push(recorded)
            const handler = routes[recorded.path.split("?")[0] ?? "/"]
            if (handler === undefined) response.writeHead(404).end()
            else handler(recorded, response)
          })
        })
        server.on("connection", () => {
          connections += 1
        })
        server.on("error", (error) => resume(Effect.fail(error)))
        server.listen(listen.port ?? 0, host, () => {
          const address = server.address()
          const port = typeof address === "object" && address !== null ? address.port : 0
          resume(
            Effect.succeed({
              server,
              api: {
                origin: `http://${host}:${port}`,
                hostPort: `${host}:${port}`,
                port,
                connections: () => connections,
                requests: () => [...requests]
              }
            })
          )
        })
      }
    ),
    ({ server }) =>
      Effect.async<void>((resume) => {
        // A test may leave a request hanging on purpose (the time limit): cut it off.
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ api }) => api))

/** Answers `status` with `body` and extra headers. */
export const answer =
  (status: number, body: string, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(status, { "content-type": "text/plain", ...headers })
    response.end(body)
  }

/** Redirects to `location` with `status` (302 unless told). */
export const redirect =
  (location: string, status = 302): Handler =>
  (_request, response) => {
    response.writeHead(status, { location })
    response.end()
  }

/** Redirects to the URL in the request's `to` query parameter. */
export const redirectToQuery: Handler = (request, response) => {
  const to = new URLSearchParams(request.path.split("?")[1] ?? "").get("to") ?? "/"
  response.writeHead(302, { location: to })
  response.end()
}

/** Never answers: for the time limit. */
export const hang: Handler = () => {}
