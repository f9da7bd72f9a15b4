import { createHash } from "node:crypto"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Html from "../http/Html.js"
import { empty, type HttpResponse, html, json } from "../http/HttpMessage.js"
import type { Problems } from "../http/Problems.js"
import * as Route from "../http/Route.js"
import * as Server from "../http/Server.js"
import { DevInbox, type Message } from "./DevInbox.js"

/**
 * The development inbox's page and JSON API, on the project's HTTP server:
 *
 * - `GET /`: the messages, newest first, each mail's HTML body in a sandboxed frame;
 * - `GET /api/messages` (`?to=` one recipient's only): the messages as JSON, newest first;
 * - `GET /api/messages/{id}`: one of them;
 * - `DELETE /api/messages`: forgets them all.
 *
 * No CORS: the messages hold working sign-in links, and no other site may read them.
 */

/** A message on the wire: snake_case, as the auth service's own JSON. */
export const MessageJson = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literal("mail", "sms"),
  /** The mail's From header; empty for a text. */
  from: Schema.String,
  /** The recipients, comma-separated: one address or number in practice. */
  to: Schema.String,
  /** Null for a text. */
  subject: Schema.NullOr(Schema.String),
  text: Schema.String,
  /** Null for a text, and for a mail without an HTML part. */
  html: Schema.NullOr(Schema.String),
  links: Schema.Array(Schema.String),
  /** ISO 8601, UTC. */
  received_at: Schema.String
})
export type MessageJson = typeof MessageJson.Type

export const toJson = (message: Message): MessageJson => ({
  id: message.id,
  kind: message.kind,
  from: message.from,
  to: message.to.join(", "),
  subject: Option.getOrNull(message.subject),
  text: message.text,
  html: Option.getOrNull(message.html),
  links: message.links,
  received_at: message.receivedAt.toISOString()
})

const problem = (status: number, error: string, message: string) => json({ error, message }, status)

const problems: Problems = {
  notFound: problem(404, "not_found", "no such page"),
  methodNotAllowed: problem(405, "method_not_allowed", "this page does not answer to that method"),
  badRequest: (description) => problem(400, "bad_request", description),
  unsupportedMediaType: (accepted) =>
    problem(415, "bad_request", `the body must be ${accepted.join(" or ")}`),
  tooLarge: (limit) => problem(413, "bad_request", `the body exceeds ${limit} bytes`),
  headersTooLarge: problem(431, "bad_request", "the request line or headers are too large"),
  unavailable: (requestId, retryAfter) =>
    json({ error: "unavailable", message: `briefly unavailable (request id ${requestId})` }, 503, {
      "retry-after": String(retryAfter)
    }),
  internal: (requestId) => problem(500, "internal", `internal error (request id ${requestId})`)
}

/** Every answer: never cached, never sniffed, no referrer (the links carry tokens). */
const privateHeaders = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
}

/** The page's one script, allowed by its digest: the button that empties the inbox. */
const script =
  'document.getElementById("clear").addEventListener("click", () => fetch("/api/messages", { method: "DELETE" }).then(() => location.reload()))'

/**
 * Mail HTML runs in frames without scripts, same-origin rights or forms (`sandbox`), and this
 * policy, which the frames inherit, lets the page itself run only its own script.
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  `script-src 'sha256-${createHash("sha256").update(script).digest("base64")}'`,
  "connect-src 'self'",
  "style-src 'unsafe-inline'",
  "img-src http: https: data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

const style = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem; color: #1d1d1f }
header { display: flex; align-items: baseline; gap: 1rem; flex-wrap: wrap }
h1 { font-size: 1.4rem; margin: 0 }
article { border: 1px solid #d0d0d5; border-radius: 8px; padding: 0.75rem 1rem; margin: 1rem 0 }
h2 { font-size: 1.1rem; margin: 0 0 0.25rem }
.meta { color: #555; margin: 0 0 0.5rem }
.kind { font-size: 0.75rem; text-transform: uppercase; border: 1px solid #999; border-radius: 4px; padding: 0 0.3rem; margin-right: 0.4rem }
ul { margin: 0.25rem 0 0.5rem; padding-left: 1.25rem; word-break: break-all }
iframe { width: 100%; height: 26rem; border: 1px solid #e0e0e5; resize: vertical }
pre { white-space: pre-wrap; background: #f5f5f7; padding: 0.75rem; margin: 0 }
.empty { color: #555 }
`

/**
 * A mail's HTML as a frame's document: its links open in a new tab, outside the sandbox. The
 * `<base>` goes after a doctype, which must come first to keep the document in standards mode.
 */
const frameDocument = (body: string) => {
  const doctype = /^\s*<!doctype[^>]*>/i.exec(body)?.[0] ?? ""
  return `${doctype}<base target="_blank">${body.slice(doctype.length)}`
}

const article = (message: Message): string => {
  const title = Option.getOrElse(message.subject, () => "Text message")
  const links =
    message.links.length === 0
      ? ""
      : `<ul>${message.links
          .map(
            (link) =>
              `<li><a href="${Html.escapeText(link)}" target="_blank" rel="noopener noreferrer">${Html.escapeText(link)}</a></li>`
          )
          .join("")}</ul>`
  const body = Option.match(message.html, {
    onNone: () => `<pre>${Html.escapeText(message.text)}</pre>`,
    onSome: (markup) =>
      `<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" title="${Html.escapeText(title)}" srcdoc="${Html.escapeText(frameDocument(markup))}"></iframe>`
  })
  const from = message.from === "" ? "" : ` · from ${Html.escapeText(message.from)}`
  const received = message.receivedAt.toISOString()
  return `<article id="${Html.escapeText(message.id)}">
<h2><span class="kind">${message.kind}</span>${Html.escapeText(title)}</h2>
<p class="meta">to ${Html.escapeText(message.to.join(", "))}${from} · <time datetime="${received}">${received}</time> · <a href="/api/messages/${encodeURIComponent(message.id)}">JSON</a></p>
${links}${body}
</article>`
}

/** The inbox as a page, newest first. */
export const page = (messages: ReadonlyArray<Message>): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Development inbox (${messages.length})</title>
<style>${style}</style>
</head>
<body>
<header>
<h1>Development inbox</h1>
<span>${messages.length === 1 ? "1 message" : `${messages.length} messages`}, newest first; reload for new ones</span>
<button id="clear" type="button">Delete all</button>
</header>
<main>
${messages.length === 0 ? '<p class="empty">Nothing yet: the mail and texts the auth service sends appear here.</p>' : messages.map(article).join("\n")}
</main>
<script>${script}</script>
</body>
</html>
`

/**
 * A recipient as `?to=` compares it: an address in any case; a number with or without its `+`
 * (texts go to `+<E.164>`, while supabase-js gives a user's `phone` without it, and an unencoded
 * `+` in a query string reads as a space).
 */
const recipientKey = (recipient: string) => recipient.trim().replace(/^\+/, "").toLowerCase()

/** Whether `message` went to `to`, each read as `recipientKey` reads it. */
const sentTo = (message: Message, to: string) => {
  const wanted = recipientKey(to)
  return message.to.some((recipient) => recipientKey(recipient) === wanted)
}

const listPage: Route.Handler<DevInbox> = () =>
  Effect.flatMap(DevInbox, (inbox) => inbox.list).pipe(
    Effect.map(
      (messages): HttpResponse =>
        html(page(messages), 200, { ...privateHeaders, "content-security-policy": contentSecurityPolicy })
    )
  )

const listMessages: Route.Handler<DevInbox> = (request) =>
  Effect.flatMap(DevInbox, (inbox) => inbox.list).pipe(
    Effect.map((messages) => {
      const to = new URLSearchParams(request.query).get("to")
      const chosen = to === null ? messages : messages.filter((message) => sentTo(message, to))
      return json(chosen.map(toJson), 200, privateHeaders)
    })
  )

const oneMessage: Route.Handler<DevInbox> = (request) =>
  Effect.flatMap(DevInbox, (inbox) => inbox.find(request.params.id ?? "")).pipe(
    Effect.map(
      Option.match({
        onNone: () => problem(404, "not_found", "no message with this id"),
        onSome: (message) => json(toJson(message), 200, privateHeaders)
      })
    )
  )

const clearMessages: Route.Handler<DevInbox> = () =>
  Effect.flatMap(DevInbox, (inbox) => inbox.clear).pipe(Effect.as(empty(204, privateHeaders)))

export const routes: ReadonlyArray<Route.Route<DevInbox>> = [
  Route.make("GET", "/", listPage),
  Route.make("GET", "/api/messages", listMessages),
  Route.make("DELETE", "/api/messages", clearMessages),
  Route.make("GET", "/api/messages/{id}", oneMessage)
]

export interface Options {
  /** Loopback only: the messages hold working sign-in links. */
  readonly host: "127.0.0.1"
  readonly port: number
  /** The variable that sets the port, for the line that says it is taken. */
  readonly portVariables?: string | undefined
}

/** The page and the API, until the scope closes (its log line names the URL). */
export const serve = (options: Options) =>
  Server.serve<DevInbox>({
    service: "development inbox",
    host: options.host,
    port: options.port,
    portVariables: options.portVariables,
    routes,
    problems,
    // No route takes cross-origin callers (see above), so this policy is never applied.
    cors: { origin: "reflect", scope: "routes", allowHeaders: [], exposeHeaders: [], maxAgeSeconds: 0 },
    maxBodyBytes: 1024,
    requestIdHeader: Option.none(),
    clientIpHeaders: [],
    metrics: false,
    shutdownTimeout: Duration.seconds(1),
    isUnavailable: () => false
  })
