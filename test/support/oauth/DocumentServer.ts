import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import type { IncomingMessage, ServerResponse } from "node:http"
import { createServer } from "node:https"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"

/**
 * A local https server for Client ID Metadata Documents, on 127.0.0.1 with a throw-away
 * self-signed certificate made by openssl for this run. Tests trust it through the fetcher's
 * test-only `ca` option; nothing turns TLS verification off.
 */

export interface TestCertificate {
  readonly key: string
  readonly cert: string
}

let certificate: TestCertificate | undefined

/** One certificate per test process, valid for 127.0.0.1 and localhost. */
export const testCertificate = (): TestCertificate => {
  if (certificate !== undefined) return certificate
  const dir = mkdtempSync(join(tmpdir(), "latchkey-cert-"))
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=latchkey test",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem")
      ],
      { stdio: "ignore" }
    )
    certificate = {
      key: readFileSync(join(dir, "key.pem"), "utf8"),
      cert: readFileSync(join(dir, "cert.pem"), "utf8")
    }
    return certificate
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export type Handler = (request: IncomingMessage, response: ServerResponse, origin: string) => void

export interface DocumentServer {
  /** `https://127.0.0.1:PORT` */
  readonly origin: string
  /** `127.0.0.1:PORT`, as the fetcher's loopback allow-list wants it. */
  readonly hostPort: string
  readonly cert: string
  /** Requests per path so far. */
  readonly hits: (path: string) => number
  /** TCP connections accepted so far. */
  readonly connections: () => number
}

/** Serves `routes` (by path) until the scope closes; unknown paths answer 404. */
export const start = (routes: Readonly<Record<string, Handler>>) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: ReturnType<typeof createServer>; readonly api: DocumentServer }>(
      (resume) => {
        const { key, cert } = testCertificate()
        const hits = new Map<string, number>()
        let connections = 0
        let origin = ""
        const server = createServer({ key, cert }, (request, response) => {
          const path = request.url ?? "/"
          hits.set(path, (hits.get(path) ?? 0) + 1)
          const handler = routes[path]
          if (handler === undefined) {
            response.writeHead(404).end()
            return
          }
          handler(request, response, origin)
        })
        server.on("connection", () => {
          connections += 1
        })
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          const port = typeof address === "object" && address !== null ? address.port : 0
          origin = `https://127.0.0.1:${port}`
          resume(
            Effect.succeed({
              server,
              api: {
                origin,
                hostPort: `127.0.0.1:${port}`,
                cert,
                hits: (path) => hits.get(path) ?? 0,
                connections: () => connections
              }
            })
          )
        })
      }
    ),
    ({ server }) =>
      Effect.async<void>((resume) => {
        // A test may leave a request hanging on purpose (the timeout test): cut it off.
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ api }) => api))

/** Answers with `body` as JSON, with extra headers. */
export const json =
  (body: (origin: string) => unknown, headers: Record<string, string> = {}): Handler =>
  (_request, response, origin) => {
    response.writeHead(200, { "content-type": "application/json", ...headers })
    response.end(JSON.stringify(body(origin)))
  }
