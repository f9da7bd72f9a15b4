import * as Effect from "effect/Effect"
import * as FakeGateway from "./FakeGateway.js"

/**
 * Vonage's SMS API, as documented: POST `/sms/json` with `api_key`, `api_secret`, `from`, `to`
 * (digits, no `+`) and `text`, plus `type=unicode` for text beyond GSM's characters. It answers
 * 200 with `messages[]`, each with `status` "0" for a message taken (and its `message-id`), or
 * another status with `error-text`.
 */

export const apiKey = "vonage-key"
export const apiSecret = "vonage-secret"
export const from = "Latchkey"
export const messageId = "0A0000000123ABCD1"

/** accept: status 0; refuse: status 29, a number the account may not text; empty: no messages. */
export type Mode = "accept" | "refuse" | "empty" | "badGateway"

export const refusalMessage = "Non-White-listed Destination - rejected"

const status = (code: string, errorText: string) =>
  FakeGateway.json(200, { "message-count": "1", messages: [{ status: code, "error-text": errorText }] })

const problemOf = (request: FakeGateway.Received): string | undefined => {
  const form = FakeGateway.formProblem(request)
  if (form !== undefined) return form
  if (request.path !== "/sms/json") return `unknown path ${request.path}`
  const to = request.form.get("to") ?? ""
  if (!/^[1-9][0-9]{1,14}$/.test(to)) return `expected to as digits, got ${to}`
  if (request.form.get("from") !== from) return "expected the configured from"
  const text = request.form.get("text") ?? ""
  if (text === "") return "expected a text"
  const unicode = !/^\p{ASCII}*$/u.test(text)
  if (unicode !== (request.form.get("type") === "unicode"))
    return "expected type=unicode exactly for non-ASCII text"
  return undefined
}

export const start = Effect.gen(function* () {
  let mode: Mode = "accept"
  const server = yield* FakeGateway.start((request) => {
    if (request.form.get("api_key") !== apiKey || request.form.get("api_secret") !== apiSecret) {
      return status("4", "Bad Credentials")
    }
    const problem = problemOf(request)
    if (problem !== undefined) return status("3", `fake Vonage: ${problem}`)
    switch (mode) {
      case "accept":
        return FakeGateway.json(200, {
          "message-count": "1",
          messages: [
            {
              to: request.form.get("to"),
              "message-id": messageId,
              status: "0",
              "remaining-balance": "3.14159265",
              "message-price": "0.03330000",
              network: "23410"
            }
          ]
        })
      case "refuse":
        return status("29", refusalMessage)
      case "empty":
        return FakeGateway.json(200, { "message-count": "0", messages: [] })
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
