import { createServer, type IncomingMessage } from "node:http"
import * as Effect from "effect/Effect"

/**
 * A local stand-in for a captcha provider's siteverify endpoint, on 127.0.0.1 and a port of
 * its own. It checks each request against the provider's documented format, answering as the
 * provider does to a malformed one and noting what was wrong in `problems`; a well-formed
 * request with the right secret gets `reply`, which a test sets.
 */

export type Reply =
  | { readonly _tag: "Answer"; readonly status: number; readonly body: string }
  /** Never answers: the connection stays open until the fake stops. */
  | { readonly _tag: "Hang" }

const json = (status: number, body: unknown): Reply => ({
  _tag: "Answer",
  status,
  body: JSON.stringify(body)
})

export const pass: Reply = json(200, {
  success: true,
  challenge_ts: "2026-01-01T00:00:00Z",
  hostname: "app.example.com",
  "error-codes": []
})
export const refuse = (codes: ReadonlyArray<string>, status = 200): Reply =>
  json(status, { success: false, "error-codes": codes })
export const answer = (status: number, body: string): Reply => ({ _tag: "Answer", status, body })
export const hang: Reply = { _tag: "Hang" }

export interface Received {
  readonly method: string
  readonly path: string
  readonly contentType: string
  /** The fields in the order they came. */
  readonly fields: ReadonlyArray<readonly [string, string]>
}

export interface FormatSpec {
  /** The documented path of siteverify. */
  readonly path: string
  readonly required: ReadonlyArray<string>
  readonly optional: ReadonlyArray<string>
  /** Whether the provider also takes a JSON body (Turnstile). */
  readonly acceptsJson: boolean
  /** The secret it knows; another gets `invalid-input-secret`. */
  readonly secret: string
}

export interface Fake {
  /** The origin to configure as the provider's base URL. */
  readonly baseUrl: string
  readonly received: Array<Received>
  /** Departures from the documented request format, one line each. */
  readonly problems: Array<string>
  /** The answer to the next well-formed requests. */
  reply: Reply
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

const parseFields = (
  contentType: string,
  body: string,
  acceptsJson: boolean
): ReadonlyArray<readonly [string, string]> | string => {
  if (contentType.startsWith("application/x-www-form-urlencoded")) return [...new URLSearchParams(body)]
  if (acceptsJson && contentType.startsWith("application/json")) {
    let value: unknown
    try {
      value = JSON.parse(body)
    } catch {
      return "a body that is not JSON"
    }
    if (typeof value !== "object" || value === null) return "a JSON body that is not an object"
    return Object.entries(value).map(([key, field]) => [key, String(field)] as const)
  }
  return `content type ${contentType === "" ? "missing" : contentType}`
}

/** Starts the fake for the scope; stopping drops the connections left hanging. */
export const start = (spec: FormatSpec) =>
  Effect.acquireRelease(
    Effect.async<{ fake: Fake; close: () => Promise<void> }>((resume) => {
      const received: Array<Received> = []
      const problems: Array<string> = []
      const state = { reply: pass }
      const server = createServer((request, response) => {
        const send = (reply: Reply) => {
          if (reply._tag === "Hang") return
          response.writeHead(reply.status, { "content-type": "application/json" })
          response.end(reply.body)
        }
        void readBody(request).then(
          (body) => {
            const method = request.method ?? ""
            const path = request.url ?? ""
            const contentType = request.headers["content-type"] ?? ""
            if (method !== "POST" || path !== spec.path) {
              problems.push(`${method} ${path}, expected POST ${spec.path}`)
              return send(answer(404, "not found"))
            }
            const fields = parseFields(contentType, body, spec.acceptsJson)
            if (typeof fields === "string") {
              problems.push(fields)
              return send(refuse(["bad-request"]))
            }
            received.push({ method, path, contentType, fields })
            const names = fields.map(([name]) => name)
            for (const name of names) {
              if (!spec.required.includes(name) && !spec.optional.includes(name))
                problems.push(`unknown field ${name}`)
            }
            if (new Set(names).size !== names.length)
              problems.push(`a field given twice: ${names.join(", ")}`)
            const value = (name: string) => fields.find(([field]) => field === name)?.[1] ?? ""
            const missing = spec.required.filter((name) => value(name) === "")
            if (missing.length > 0) {
              problems.push(`missing ${missing.join(", ")}`)
              return send(refuse(missing.map((name) => `missing-input-${name}`)))
            }
            if (value("secret") !== spec.secret) return send(refuse(["invalid-input-secret"]))
            return send(state.reply)
          },
          () => response.destroy()
        )
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        const fake: Fake = {
          baseUrl: `http://127.0.0.1:${port}`,
          received,
          problems,
          get reply() {
            return state.reply
          },
          set reply(reply: Reply) {
            state.reply = reply
          }
        }
        const close = () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve())
            server.closeAllConnections()
          })
        resume(Effect.succeed({ fake, close }))
      })
    }),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ fake }) => fake))
