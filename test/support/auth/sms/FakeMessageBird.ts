import * as Effect from "effect/Effect"
import * as FakeGateway from "./FakeGateway.js"

/**
 * MessageBird's SMS API, as documented: POST `/messages` with `Authorization: AccessKey {key}`
 * and `originator`, `recipients` (numbers without `+`) and `body`. A message it takes is
 * answered 201 with its `id` and recipient counts; errors are `{ errors: [{ code,
 * description, parameter }] }`.
 */

export const accessKey = "live_messagebird_key"
export const originator = "Latchkey"
export const messageId = "e8077d803532c0b5937c639b60216938"

/** accept: 201; refuse: 422 for recipients it cannot text; unsent: 201 sent to nobody. */
export type Mode = "accept" | "refuse" | "unsent" | "badGateway"

export const refusalMessage = "no (correct) recipients found"

const error = (status: number, code: number, description: string, parameter: string | null) =>
  FakeGateway.json(status, { errors: [{ code, description, parameter }] })

const problemOf = (request: FakeGateway.Received): string | undefined => {
  const form = FakeGateway.formProblem(request)
  if (form !== undefined) return form
  if (request.path !== "/messages") return `unknown path ${request.path}`
  const recipients = request.form.get("recipients") ?? ""
  if (!/^[1-9][0-9]{1,14}$/.test(recipients)) return `expected recipients as digits, got ${recipients}`
  if (request.form.get("originator") !== originator) return "expected the configured originator"
  if ((request.form.get("body") ?? "") === "") return "expected a body"
  return undefined
}

export const start = Effect.gen(function* () {
  let mode: Mode = "accept"
  const server = yield* FakeGateway.start((request) => {
    if (request.headers.authorization !== `AccessKey ${accessKey}`) {
      return error(401, 2, "Request not allowed (incorrect access_key)", "access_key")
    }
    const problem = problemOf(request)
    if (problem !== undefined) return error(422, 9, `fake MessageBird: ${problem}`, null)
    const created = (sent: number) =>
      FakeGateway.json(201, {
        id: messageId,
        href: `https://rest.messagebird.com/messages/${messageId}`,
        direction: "mt",
        type: "sms",
        originator: request.form.get("originator"),
        body: request.form.get("body"),
        recipients: {
          totalCount: 1,
          totalSentCount: sent,
          totalDeliveredCount: 0,
          totalDeliveryFailedCount: 0
        }
      })
    switch (mode) {
      case "accept":
        return created(1)
      case "refuse":
        return error(422, 9, refusalMessage, "recipients")
      case "unsent":
        return created(0)
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
