import { createServer, type IncomingHttpHeaders } from "node:http"
import * as Effect from "effect/Effect"

/**
 * The plumbing of the SMS gateway fakes: a plain-http server on 127.0.0.1 (port 0) that reads
 * each request's form and answers what the gateway's fake decides, until the scope closes. Each
 * gateway's own file checks the request against the gateway's documented format.
 */

export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly form: URLSearchParams
}

export interface Reply {
  readonly status: number
  readonly body: string
  readonly contentType: string
}

/** Never answers: for the time limit. */
export const hang = "hang"

export const json = (status: number, body: unknown): Reply => ({
  status,
  body: JSON.stringify(body),
  contentType: "application/json"
})

/** What a proxy in front of a gateway answers when the gateway is down. */
export const badGateway: Reply = {
  status: 502,
  body: "<html><body><h1>502 Bad Gateway</h1></body></html>",
  contentType: "text/html"
}

/** A 200 whose body is cut off mid-JSON. */
export const truncated: Reply = { status: 200, body: '{"sid": "SM', contentType: "application/json" }

export interface FakeServer {
  /** `http://127.0.0.1:PORT`: the adapter's `baseUrl`. */
  readonly origin: string
  /** The requests so far, oldest first. */
  readonly received: () => ReadonlyArray<Received>
}

/**
 * The problem with a request that every gateway refuses alike: not a POST, or not a form. The
 * adapters post forms, as Supabase Auth does and as each gateway's documentation shows.
 */
export const formProblem = (request: Received): string | undefined => {
  if (request.method !== "POST") return `expected POST, got ${request.method}`
  const type = request.headers["content-type"] ?? ""
  if (!type.startsWith("application/x-www-form-urlencoded")) {
    return `expected an application/x-www-form-urlencoded body, got ${type || "no content type"}`
  }
  return undefined
}

export const start = (answer: (request: Received) => Reply | typeof hang) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: ReturnType<typeof createServer>; readonly fake: FakeServer }>(
      (resume) => {
        const received: Array<Received> = []
        const server = createServer((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            const got: Received = {
              method: request.method ?? "",
              path: request.url ?? "/",
              headers: request.headers,
              form: new URLSearchParams(Buffer.concat(chunks).toString("utf8"))
            }
            received.push(got)
            const reply = answer(got)
            if (reply === hang) return
            response.writeHead(reply.status, { "content-type": reply.contentType })
            response.end(reply.body)
          })
        })
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          const port = typeof address === "object" && address !== null ? address.port : 0
          resume(
            Effect.succeed({
              server,
              fake: { origin: `http://127.0.0.1:${port}`, received: () => [...received] }
            })
          )
        })
      }
    ),
    ({ server }) =>
      Effect.async<void>((resume) => {
        // Stop accepting first, then drop what is open (a request left hanging on purpose).
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  ).pipe(Effect.map(({ fake }) => fake))
