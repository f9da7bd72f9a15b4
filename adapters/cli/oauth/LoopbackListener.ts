import { createServer, type Server } from "node:http"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import * as Telemetry from "../../../application/Telemetry.js"
import * as Html from "../../http/Html.js"

/**
 * The loopback redirect of a native app (RFC 8252 §7.3): an HTTP listener on 127.0.0.1 on a
 * port the system picks, so two logins at once never collide and nothing is exposed beyond this
 * machine. The server accepts any port for a registered `http://127.0.0.1/callback`.
 */

export class ListenerFailed extends Schema.TaggedError<ListenerFailed>()("ListenerFailed", {
  message: Schema.String
}) {}

export interface Listener {
  /** `http://127.0.0.1:<port>/callback`, the redirect_uri to send. */
  readonly redirectUri: string
}

/** The text may quote the redirect's query, which anyone can craft: it is escaped. */

const page = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body style="font-family:system-ui,sans-serif;margin:4rem auto;max-width:32rem">` +
  `<h1>${title}</h1><p>${Html.escapeText(text)}</p></body></html>`

/** What the browser is shown once the redirect has been read. */
export interface Answer {
  readonly ok: boolean
  readonly text: string
}

/**
 * Listens until the scope closes. Each request to `/callback` is handed to `onRedirect` with
 * the URL as the redirect_uri spells it (openid-client sends that URL, query stripped, as the
 * token request's redirect_uri, so it must not depend on the Host header the browser used).
 */
export const listen = Telemetry.fn("LoopbackListener.listen")(
  (onRedirect: (url: URL) => Effect.Effect<Answer>) =>
    Effect.gen(function* () {
      const runtime = yield* Effect.runtime<never>()
      const run = Runtime.runPromise(runtime)
      const { redirectUri } = yield* Effect.acquireRelease(
        Effect.async<{ readonly server: Server; readonly redirectUri: string }, ListenerFailed>((resume) => {
          let redirectUri = "http://127.0.0.1/callback"
          const server = createServer((request, response) => {
            const url = new URL(request.url ?? "/", redirectUri)
            if (request.method !== "GET" || url.pathname !== "/callback") {
              // Browsers also ask for /favicon.ico; only the redirect matters.
              response.writeHead(404, { "content-type": "text/plain" }).end("Not found")
              return
            }
            void run(onRedirect(url)).then((answer) => {
              const title = answer.ok ? "Logged in" : "Login failed"
              response
                .writeHead(answer.ok ? 200 : 400, {
                  "content-type": "text/html; charset=utf-8",
                  "cache-control": "no-store"
                })
                .end(page(title, answer.text))
            })
          })
          server.once("error", (error) =>
            resume(
              Effect.fail(new ListenerFailed({ message: `cannot listen on 127.0.0.1: ${error.message}` }))
            )
          )
          server.listen(0, "127.0.0.1", () => {
            const address = server.address()
            if (address === null || typeof address === "string") {
              server.close()
              resume(Effect.fail(new ListenerFailed({ message: "the loopback listener has no TCP port" })))
              return
            }
            redirectUri = `http://127.0.0.1:${address.port}/callback`
            resume(Effect.succeed({ server, redirectUri }))
          })
        }),
        ({ server }) =>
          Effect.async<void>((resume) => {
            // A browser keeps its connection alive; without this, close would wait for it.
            server.closeAllConnections()
            server.close(() => resume(Effect.void))
          })
      )
      return { redirectUri } satisfies Listener
    })
)
