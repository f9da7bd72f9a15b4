import * as Effect from "effect/Effect"
import * as FakeGateway from "./FakeGateway.js"

/**
 * Textlocal's `send` command, as documented: POST `/send/` with `apikey`, `sender`, `numbers`
 * (digits, no `+`) and `message`. Every answer is JSON with `status` "success" (and the
 * `messages` sent, each with an `id`) or "failure" with `errors: [{ code, message }]`.
 */

export const apiKey = "textlocal-key"
export const sender = "LTCHKY"
export const messageId = "1151346216"

/** accept: success; refuse: failure 51, no number it can text; badGateway: an HTML 502. */
export type Mode = "accept" | "refuse" | "badGateway"

export const refusalMessage = "No valid numbers specified"

const failure = (code: number, message: string) =>
  FakeGateway.json(200, { errors: [{ code, message }], status: "failure" })

const problemOf = (request: FakeGateway.Received): string | undefined => {
  const form = FakeGateway.formProblem(request)
  if (form !== undefined) return form
  if (request.path !== "/send/") return `unknown path ${request.path}`
  const numbers = request.form.get("numbers") ?? ""
  if (!/^[1-9][0-9]{1,14}$/.test(numbers)) return `expected numbers as digits, got ${numbers}`
  if (request.form.get("sender") !== sender) return "expected the configured sender"
  if ((request.form.get("message") ?? "") === "") return "expected a message"
  return undefined
}

export const start = Effect.gen(function* () {
  let mode: Mode = "accept"
  const server = yield* FakeGateway.start((request) => {
    if (request.form.get("apikey") !== apiKey) return failure(3, "Invalid login details")
    const problem = problemOf(request)
    if (problem !== undefined) return failure(2, `fake Textlocal: ${problem}`)
    switch (mode) {
      case "accept":
        return FakeGateway.json(200, {
          balance: 1162,
          batch_id: 123456789,
          cost: 1,
          num_messages: 1,
          message: { num_parts: 1, sender, content: request.form.get("message") },
          receipt_url: "",
          custom: "",
          messages: [{ id: messageId, recipient: Number(request.form.get("numbers")) }],
          status: "success"
        })
      case "refuse":
        return failure(51, refusalMessage)
      case "badGateway":
        return FakeGateway.badGateway
    }
  })
  return {
    ...server,
    /** How the following requests are answered. */
    answer: (next: Mode) => {
      mode = next
    }
  }
})
