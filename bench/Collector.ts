/**
 * A stand-in for an OpenTelemetry collector: accepts OTLP/HTTP exports (`POST /v1/traces`,
 * `/v1/metrics`, `/v1/logs`), answers 200 as a collector does, and counts what arrived. The
 * server pays the whole cost of exporting; nothing is kept.
 */
import { createServer } from "node:http"
import * as Effect from "effect/Effect"

export interface Received {
  readonly requests: number
  readonly bytes: number
}

export interface Collector {
  readonly url: string
  readonly received: () => Readonly<Record<string, Received>>
}

export const start = Effect.acquireRelease(
  Effect.async<{ readonly collector: Collector; readonly close: () => void }>((resume) => {
    const received: Record<string, Received> = {}
    const server = createServer((req, res) => {
      let bytes = 0
      req.on("data", (chunk: Buffer) => {
        bytes += chunk.length
      })
      req.on("end", () => {
        const path = (req.url ?? "/").split("?")[0] ?? "/"
        const before = received[path] ?? { requests: 0, bytes: 0 }
        received[path] = { requests: before.requests + 1, bytes: before.bytes + bytes }
        const json = (req.headers["content-type"] ?? "").includes("json")
        res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" })
        res.end(json ? "{}" : undefined)
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(
        Effect.succeed({
          collector: { url: `http://127.0.0.1:${port}`, received: () => ({ ...received }) },
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        })
      )
    })
  }),
  ({ close }) => Effect.sync(close)
).pipe(Effect.map(({ collector }) => collector))
