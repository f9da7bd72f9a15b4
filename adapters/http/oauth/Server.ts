import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Exit, Runtime, Schema } from "effect"
import * as Api from "./Api.js"
import type { ApiRequest, ApiResponse } from "./ApiMessage.js"
import * as Form from "./Form.js"
import * as InternalError from "./InternalError.js"
import * as Routes from "./Routes.js"

export class ListenError extends Schema.TaggedError<ListenError>()("ListenError", {
  message: Schema.String
}) {}

export interface ListenOptions {
  readonly port: number
  readonly host: string
}

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query < 0 ? url : url.slice(0, query)
}

const send = (res: ServerResponse, response: ApiResponse) => {
  if (res.headersSent || res.destroyed) return
  res.writeHead(response.status, response.headers)
  res.end(response.body)
}

/**
 * The oauth service's HTTP server on node:http. The machine endpoints (Api.ts) are read and
 * answered here directly: on a 2-core machine the platform's per-request router, request and
 * response wrappers cost more CPU than the whole of an introspection (docs/performance.md).
 * Everything else — the browser pages, the metadata document, unknown paths — goes to the
 * platform app of Routes.ts.
 */
export const serve = (options: ListenOptions) =>
  Effect.gen(function* () {
    const pages = yield* NodeHttpServer.makeHandler(Routes.app)
    const runtime = yield* Effect.runtime<Effect.Effect.Context<ReturnType<typeof Api.handle>>>()
    const run = Runtime.runCallback(runtime)

    const answer = (req: IncomingMessage, res: ServerResponse, path: string, body: string) => {
      const request: ApiRequest = {
        method: req.method ?? "POST",
        path,
        headers: req.headers,
        body,
        remoteAddress: req.socket.remoteAddress
      }
      const cancel = run(Api.handle(request).pipe(Effect.catchAllCause(InternalError.answer)), {
        onExit: (exit) => {
          if (Exit.isSuccess(exit)) send(res, exit.value)
        }
      })
      // A client that hangs up interrupts its request, as on the platform's routes.
      res.on("close", () => {
        if (!res.writableEnded) cancel()
      })
    }

    // Oversized bodies are refused by their declared length before reading, and while reading
    // when they come chunked; the connection is closed rather than drained.
    const refuse = (res: ServerResponse) => {
      send(res, { ...Api.bodyTooLarge, headers: { ...Api.bodyTooLarge.headers, connection: "close" } })
    }

    const machine = (req: IncomingMessage, res: ServerResponse, path: string) => {
      if (Number(req.headers["content-length"] ?? "0") > Form.maxBodyBytes) return refuse(res)
      const chunks: Array<Buffer> = []
      let size = 0
      req.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > Form.maxBodyBytes) {
          req.removeAllListeners("data")
          refuse(res)
        } else chunks.push(chunk)
      })
      req.on("end", () => {
        if (size <= Form.maxBodyBytes) answer(req, res, path, Buffer.concat(chunks, size).toString("utf8"))
      })
      // An aborted upload: the socket is gone, nobody to answer.
      req.on("error", () => {})
    }

    const server = createServer((req, res) => {
      const path = pathOf(req.url ?? "/")
      if ((req.method === "POST" || req.method === "OPTIONS") && Api.paths.has(path)) machine(req, res, path)
      else pages(req, res)
    })
    yield* Effect.acquireRelease(
      Effect.async<void, ListenError>((resume) => {
        server.once("error", (cause) =>
          resume(
            Effect.fail(
              new ListenError({
                message: `cannot listen on ${options.host}:${options.port}: ${cause.message}`
              })
            )
          )
        )
        server.listen(options.port, options.host, () => resume(Effect.void))
      }),
      // Requests in flight get a moment to finish; then every connection is closed.
      () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeIdleConnections()
        }).pipe(
          Effect.timeoutOption("2 seconds"),
          Effect.ensuring(Effect.sync(() => server.closeAllConnections()))
        )
    )
    const address = server.address()
    if (address !== null && typeof address === "object") {
      yield* Effect.logInfo(`Listening on http://${address.address}:${address.port}`)
    }
  })
