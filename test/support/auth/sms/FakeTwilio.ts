import * as Effect from "effect/Effect"
import * as FakeGateway from "./FakeGateway.js"

/**
 * Twilio Programmable Messaging's Message resource, as documented: POST
 * `/2010-04-01/Accounts/{AccountSid}/Messages.json`, basic auth of the account SID and auth
 * token, a form with `To`, one of `From` / `MessagingServiceSid`, and `Body` or a `ContentSid`
 * template. Errors are Twilio's error resource (`code`, `message`, `more_info`, `status`).
 */

export const accountSid = "AC0123456789abcdef0123456789abcdef"
export const authToken = "twilio-auth-token"
export const messageSid = "SM0123456789abcdef0123456789abcdef"

/**
 * accept: 201 with the message queued; refuse: Twilio's 400 for a number it cannot text;
 * failed: 201 with a message already `failed`; badGateway / truncated: unreadable answers.
 */
export type Mode = "accept" | "refuse" | "failed" | "badGateway" | "truncated" | "hang"

export const refusalMessage = "The 'To' number +15005550001 is not a valid phone number."

export const failedMessage = "Unreachable destination handset"

const error = (status: number, code: number, message: string) =>
  FakeGateway.json(status, {
    code,
    message,
    more_info: `https://www.twilio.com/docs/errors/${code}`,
    status
  })

const e164 = /^\+[1-9][0-9]{1,14}$/

const problemOf = (request: FakeGateway.Received): string | undefined => {
  const form = FakeGateway.formProblem(request)
  if (form !== undefined) return form
  if (request.path !== `/2010-04-01/Accounts/${accountSid}/Messages.json`)
    return `unknown path ${request.path}`
  const basic = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`
  if (request.headers.authorization !== basic) return "expected basic auth of the account SID and auth token"
  const to = request.form.get("To") ?? ""
  const whatsapp = to.startsWith("whatsapp:")
  if (!e164.test(whatsapp ? to.slice("whatsapp:".length) : to)) return `expected To in E.164, got ${to}`
  const from = request.form.get("From")
  const service = request.form.get("MessagingServiceSid")
  if ((from === null) === (service === null)) return "expected exactly one of From and MessagingServiceSid"
  if (service !== null && !service.startsWith("MG")) return `expected a Messaging Service SID, got ${service}`
  if (from !== null && whatsapp !== from.startsWith("whatsapp:")) {
    return "expected the whatsapp: prefix on both To and From, or on neither"
  }
  const content = request.form.get("ContentSid")
  if (content !== null) {
    if (!whatsapp) return "ContentSid is for WhatsApp templates"
    try {
      JSON.parse(request.form.get("ContentVariables") ?? "")
    } catch {
      return "expected ContentVariables as JSON beside ContentSid"
    }
  } else if ((request.form.get("Body") ?? "") === "") {
    return "expected a Body"
  }
  return undefined
}

export const start = Effect.gen(function* () {
  let mode: Mode = "accept"
  const server = yield* FakeGateway.start((request) => {
    const problem = problemOf(request)
    if (problem !== undefined) return error(400, 21_000, `fake Twilio: ${problem}`)
    const resource = (status: string, errorMessage: string | null) =>
      FakeGateway.json(201, {
        sid: messageSid,
        account_sid: accountSid,
        to: request.form.get("To"),
        from: request.form.get("From"),
        messaging_service_sid: request.form.get("MessagingServiceSid"),
        body: request.form.get("Body"),
        status,
        error_code: errorMessage === null ? null : 30_003,
        error_message: errorMessage
      })
    switch (mode) {
      case "accept":
        return resource("queued", null)
      case "refuse":
        return error(400, 21_211, refusalMessage)
      case "failed":
        return resource("failed", failedMessage)
      case "badGateway":
        return FakeGateway.badGateway
      case "truncated":
        return FakeGateway.truncated
      case "hang":
        return FakeGateway.hang
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
