import { randomInt } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as SmsGateways from "../../../adapters/sms/auth/SmsGateways.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as FakeTwilio from "../../support/auth/sms/FakeTwilio.js"
import * as Allowed from "../../support/outbound/Allowed.js"
import * as AuthServerHarness from "../support/InProcessAuth.js"

const messagingService = "MG0123456789abcdef0123456789abcdef"
const testNumber = "+15550001234"

let scope: Scope.CloseableScope
let twilio: Effect.Effect.Success<typeof FakeTwilio.start>
let baseUrl = ""
let anonKey = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  twilio = await Effect.runPromise(Scope.extend(FakeTwilio.start, scope))
  const running = await Effect.runPromise(
    Scope.extend(
      AuthServerHarness.start({
        env: {
          AUTHSVC_SMS_AUTOCONFIRM: "false",
          AUTHSVC_SMS_PROVIDER: "twilio",
          AUTHSVC_SMS_TWILIO_ACCOUNT_SID: FakeTwilio.accountSid,
          AUTHSVC_SMS_TWILIO_AUTH_TOKEN: FakeTwilio.authToken,
          AUTHSVC_SMS_TWILIO_MESSAGE_SERVICE_SID: messagingService,
          AUTHSVC_SMS_TEST_OTP: `${testNumber}:987654`
        },
        // The real Twilio adapter, pointed at the local fake instead of api.twilio.com.
        smsSender: SmsGateways.layer({
          provider: "twilio",
          settings: {
            accountSid: FakeTwilio.accountSid,
            authToken: Redacted.make(FakeTwilio.authToken),
            messageServiceSid: messagingService,
            contentSid: Option.none(),
            baseUrl: twilio.origin,
            // The fake listens on 127.0.0.1, which the outbound guard refuses unless allowed.
            allowedPrivateAddresses: Allowed.localhost
          }
        })
      }),
      scope
    )
  )
  baseUrl = running.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** A number no other test uses, written with its `+`. */
const freshNumber = () => `+1555${String(randomInt(1_000_000, 9_999_999))}`

/** A number as Supabase Auth stores and returns it: the digits, without the `+`. */
const stored = (phone: string) => phone.replace(/^\+/, "")

/** The codes texted to `to` so far, oldest first, read from the bodies Twilio received. */
const codesTo = (to: string, channel: "sms" | "whatsapp" = "sms") =>
  twilio
    .received()
    .filter((request) => request.form.get("To") === (channel === "whatsapp" ? `whatsapp:${to}` : to))
    .map((request) => /(\d{6,10})/.exec(request.form.get("Body") ?? "")?.[1] ?? "")

const lastCode = (to: string, channel: "sms" | "whatsapp" = "sms") => {
  const code = codesTo(to, channel).at(-1)
  if (code === undefined) throw new Error(`no text to ${to}`)
  return code
}

describe("phone sign-up and sign-in through supabase-js, texts sent through the Twilio adapter", () => {
  it("signUp with a phone texts a code; verifyOtp type sms confirms the number and signs in", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const phone = freshNumber()
    const signedUp = await supabase.auth.signUp({ phone, password: "a long enough password" })
    expect(signedUp.error).toBeNull()
    expect(signedUp.data.session).toBeNull()
    expect(signedUp.data.user?.phone).toBe(stored(phone))
    const refused = await supabase.auth.signInWithPassword({ phone, password: "a long enough password" })
    expect(SupabaseClientSupport.apiError(refused.error).code).toBe("phone_not_confirmed")

    const verified = await supabase.auth.verifyOtp({ phone, token: lastCode(phone), type: "sms" })
    expect(verified.error).toBeNull()
    expect(verified.data.user?.phone_confirmed_at).toBeTruthy()
    expect(
      (await supabase.auth.signInWithPassword({ phone, password: "a long enough password" })).error
    ).toBeNull()
  })

  it("takes a number as Supabase Auth does (+ and spaces dropped), keeps its digits and texts it with its +", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const phone = freshNumber()
    const written = `${phone.slice(0, 2)} ${phone.slice(2, 5)} ${phone.slice(5, 8)} ${phone.slice(8)}`
    const signedUp = await supabase.auth.signUp({ phone: written, password: "a long enough password" })
    expect(signedUp.error).toBeNull()
    expect(signedUp.data.user?.phone).toBe(stored(phone))
    const verified = await supabase.auth.verifyOtp({
      phone: stored(phone),
      token: lastCode(phone),
      type: "sms"
    })
    expect(verified.error).toBeNull()
    expect(verified.data.session?.user.phone).toBe(stored(phone))

    // No numbering plan is consulted: a number of a length no country uses is taken, as there.
    const short = `+1555${String(randomInt(1000, 9999))}`
    expect(
      (await supabase.auth.signUp({ phone: short, password: "a long enough password" })).error
    ).toBeNull()
    expect(codesTo(short)).toHaveLength(1)

    for (const refused of ["+1 (555) 010-0100", "+0155501000", "++15555550100", "1234567890123456"]) {
      const answer = await supabase.auth.signUp({ phone: refused, password: "a long enough password" })
      expect(SupabaseClientSupport.apiError(answer.error)).toMatchObject({
        status: 400,
        code: "validation_failed",
        message: "Invalid phone number format (E.164 required)"
      })
    }
  })

  it("signInWithOtp texts a code (the message id for a confirmed user); five wrong codes end it", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const phone = freshNumber()
    const first = await supabase.auth.signInWithOtp({ phone, options: { data: { plan: "pro" } } })
    expect(first.error).toBeNull()
    const created = await supabase.auth.verifyOtp({ phone, token: lastCode(phone), type: "sms" })
    expect(created.data.user?.user_metadata).toMatchObject({ plan: "pro" })

    // Within SMS_MAX_FREQUENCY: refused, nothing texted.
    const texts = codesTo(phone).length
    const tooSoon = await supabase.auth.signInWithOtp({ phone })
    expect(SupabaseClientSupport.apiError(tooSoon.error)).toMatchObject({
      status: 429,
      code: "over_sms_send_rate_limit"
    })
    expect(codesTo(phone)).toHaveLength(texts)

    const other = freshNumber()
    await supabase.auth.signInWithOtp({ phone: other })
    const right = lastCode(other)
    const wrong = right === "000000" ? "111111" : "000000"
    for (let attempt = 0; attempt < 5; attempt++) {
      const failed = await supabase.auth.verifyOtp({ phone: other, token: wrong, type: "sms" })
      expect(SupabaseClientSupport.apiError(failed.error).code).toBe("otp_expired")
    }
    // The right code comes too late: five wrong ones ended it.
    expect((await supabase.auth.verifyOtp({ phone: other, token: right, type: "sms" })).error).not.toBeNull()
  })

  it("a number the gateway refuses: sms_send_failed with Twilio's words, and no user is left behind", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const phone = freshNumber()
    twilio.answer("refuse")
    try {
      const refused = await supabase.auth.signInWithOtp({ phone })
      expect(SupabaseClientSupport.apiError(refused.error)).toMatchObject({
        status: 422,
        code: "sms_send_failed",
        message: `Error sending confirmation OTP to provider: ${FakeTwilio.refusalMessage}`
      })
    } finally {
      twilio.answer("accept")
    }
    // Nothing was written: the same number signs up as new, and its code is the only one.
    expect((await supabase.auth.signUp({ phone, password: "a long enough password" })).error).toBeNull()
    expect((await supabase.auth.verifyOtp({ phone, token: lastCode(phone), type: "sms" })).error).toBeNull()
  })

  it("WhatsApp through Twilio, and SMS_TEST_OTP's fixed code without any text", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const phone = freshNumber()
    expect((await supabase.auth.signInWithOtp({ phone, options: { channel: "whatsapp" } })).error).toBeNull()
    expect(
      (await supabase.auth.verifyOtp({ phone, token: lastCode(phone, "whatsapp"), type: "sms" })).error
    ).toBeNull()

    const before = twilio.received().length
    expect((await supabase.auth.signInWithOtp({ phone: testNumber })).error).toBeNull()
    expect(twilio.received()).toHaveLength(before)
    const verified = await supabase.auth.verifyOtp({ phone: testNumber, token: "987654", type: "sms" })
    expect(verified.error).toBeNull()
    expect(verified.data.user?.phone).toBe(stored(testNumber))
  })

  it("updateUser with a new phone texts it; verifyOtp type phone_change moves the number", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const phone = freshNumber()
    await supabase.auth.signUp({ phone, password: "a long enough password" })
    await supabase.auth.verifyOtp({ phone, token: lastCode(phone), type: "sms" })

    const next = freshNumber()
    const asked = await supabase.auth.updateUser({ phone: next })
    expect(asked.error).toBeNull()
    expect(asked.data.user?.phone).toBe(stored(phone))
    expect(asked.data.user?.new_phone).toBe(stored(next))
    const resent = await supabase.auth.resend({ type: "phone_change", phone })
    expect(SupabaseClientSupport.apiError(resent.error).status).toBe(429)

    const changed = await supabase.auth.verifyOtp({
      phone: next,
      token: lastCode(next),
      type: "phone_change"
    })
    expect(changed.error).toBeNull()
    expect(changed.data.user?.phone).toBe(stored(next))
    expect(changed.data.user?.new_phone).toBeUndefined()
    expect(
      changed.data.user?.identities?.find((identity) => identity.provider === "phone")?.identity_data?.phone
    ).toBe(stored(next))
    await supabase.auth.signOut()
    expect(
      (await supabase.auth.signInWithPassword({ phone: next, password: "a long enough password" })).error
    ).toBeNull()

    // GET /reauthenticate texts a phone-only user their nonce.
    const texts = codesTo(next).length
    expect((await supabase.auth.reauthenticate()).error).toBeNull()
    expect(codesTo(next)).toHaveLength(texts + 1)
  })
})
