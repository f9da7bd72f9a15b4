import * as Effect from "effect/Effect"
import * as FakeGateway from "./FakeGateway.js"

/**
 * Twilio Verify, as documented: POST `/v2/Services/{ServiceSid}/Verifications` with `To` and
 * `Channel` starts a verification; POST `/v2/Services/{ServiceSid}/VerificationCheck` with `To`
 * and `Code` answers `status: approved` for the right code, `pending` for a wrong one, and 404
 * once the verification is gone (expired, approved or out of attempts). Basic auth of the
 * account SID and auth token; errors are Twilio's error resource.
 */

export const accountSid = "AC0123456789abcdef0123456789abcdef"
export const authToken = "verify-auth-token"
export const serviceSid = "VA0123456789abcdef0123456789abcdef"
export const verificationSid = "VE0123456789abcdef0123456789abcdef"

/** The code the fake "sent". */
export const code = "424242"

/**
 * accept: verifications start and checks compare codes; refuse: Twilio's 400 for a bad `To`;
 * expired: the check's 404; exhausted: the check's 429 with 60202; denied: 401 to everything.
 */
export type Mode = "accept" | "refuse" | "expired" | "exhausted" | "denied" | "badGateway"

export const refusalMessage = "Invalid parameter `To`: +15005550001"

const error = (status: number, errorCode: number, message: string) =>
  FakeGateway.json(status, {
    code: errorCode,
    message,
    more_info: `https://www.twilio.com/docs/errors/${errorCode}`,
    status
  })

const e164 = /^\+[1-9][0-9]{1,14}$/

const base = `/v2/Services/${serviceSid}`

const problemOf = (request: FakeGateway.Received): string | undefined => {
  const form = FakeGateway.formProblem(request)
  if (form !== undefined) return form
  if (request.path !== `${base}/Verifications` && request.path !== `${base}/VerificationCheck`) {
    return `unknown path ${request.path}`
  }
  const basic = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`
  if (request.headers.authorization !== basic) return "expected basic auth of the account SID and auth token"
  const to = request.form.get("To") ?? ""
  // Verify takes the bare number on every channel: no whatsapp: prefix.
  if (!e164.test(to)) return `expected To in E.164, got ${to}`
  if (request.path.endsWith("/Verifications")) {
    const channel = request.form.get("Channel") ?? ""
    if (!["sms", "whatsapp", "call", "email"].includes(channel)) return `unknown Channel ${channel}`
  } else if ((request.form.get("Code") ?? "") === "") {
    return "expected a Code"
  }
  return undefined
}

export const start = Effect.gen(function* () {
  let mode: Mode = "accept"
  const server = yield* FakeGateway.start((request) => {
    const problem = problemOf(request)
    if (problem !== undefined) return error(400, 60_200, `fake Twilio Verify: ${problem}`)
    if (mode === "badGateway") return FakeGateway.badGateway
    if (mode === "denied") return error(401, 20_003, "Authenticate")
    const to = request.form.get("To")
    if (request.path.endsWith("/Verifications")) {
      if (mode === "refuse") return error(400, 60_200, refusalMessage)
      return FakeGateway.json(201, {
        sid: verificationSid,
        service_sid: serviceSid,
        account_sid: accountSid,
        to,
        channel: request.form.get("Channel"),
        status: "pending",
        valid: false
      })
    }
    if (mode === "expired") {
      return error(404, 20_404, `The requested resource ${base}/VerificationCheck was not found`)
    }
    if (mode === "exhausted") return error(429, 60_202, "Max check attempts reached")
    const approved = request.form.get("Code") === code
    return FakeGateway.json(200, {
      sid: verificationSid,
      service_sid: serviceSid,
      account_sid: accountSid,
      to,
      channel: "sms",
      status: approved ? "approved" : "pending",
      valid: approved
    })
  })
  return {
    ...server,
    /** How the following requests are answered. */
    answer: (next: Mode) => {
      mode = next
    }
  }
})
