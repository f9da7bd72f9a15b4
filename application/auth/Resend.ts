import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import * as ChangeEmail from "./ChangeEmail.js"
import * as ChangePhone from "./ChangePhone.js"
import * as ClientInput from "./ClientInput.js"
import { Transactions } from "./ports/Transactions.js"
import { UserRepository } from "./ports/UserRepository.js"
import * as SendSms from "./SendSms.js"
import * as SendVerification from "./SendVerification.js"

/** POST /resend, as decoded from the body (`""` when absent). */
export interface ResendRequest {
  readonly type: string
  readonly email: string
  readonly phone: string
  /** `redirect_to` of the query (supabase-js `options.emailRedirectTo`). */
  readonly redirectTo: string
  readonly codeChallenge: string
  readonly codeChallengeMethod: string
}

/**
 * Supabase Auth's checks of a resend, in its order and words; the PKCE challenge of a mail's
 * resend (a texted code ends in no flow, and its parameters are not read, as there).
 */
const checked = (request: ResendRequest) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const byEmail = request.type === "signup" || request.type === "email_change"
    const byPhone = request.type === "sms" || request.type === "phone_change"
    if (!byEmail && !byPhone) {
      return yield* new AuthError.ResendRequestInvalid({ problem: "unknown_type" })
    }
    const challenge = byEmail
      ? yield* ClientInput.pkceChallenge(request.codeChallenge, request.codeChallengeMethod)
      : Option.none<ClientInput.PkceChallenge>()
    if (byEmail && request.email === "")
      return yield* new AuthError.ResendRequestInvalid({ problem: "email_missing" })
    if (byPhone && request.phone === "")
      return yield* new AuthError.ResendRequestInvalid({ problem: "phone_missing" })
    if (request.email !== "" && request.phone !== "") {
      return yield* new AuthError.EmailAndPhoneGiven({ at: "resend" })
    }
    // Supabase Auth's 400 here, where the password grant's same words come with 422.
    if (byEmail && !settings.emailEnabled) return yield* new AuthError.EmailResendDisabled()
    if (byPhone && !settings.phoneEnabled) return yield* new AuthError.PhoneResendDisabled()
    return challenge
  })

/**
 * POST /resend (supabase-js `resend`): the sign-up confirmation, or the pending email change's
 * mails, sent again with new links and codes that replace the last ones, at most once per
 * `SMTP_MAX_FREQUENCY`. An address
 * nobody has, one that is confirmed already, and an email change nobody asked for all get the
 * same empty answer, as in Supabase Auth. By phone: the confirmation code, or the pending phone
 * change's, texted again; the gateway's message id when a confirmation was texted.
 */
export const resend = Telemetry.fn("Resend.resend")((request: ResendRequest) =>
  SendVerification.evenlyTimed(
    Effect.gen(function* () {
      const challenge = yield* checked(request)
      const settings = yield* AuthSettings
      const users = yield* UserRepository
      if (request.type === "sms" || request.type === "phone_change") {
        const phone = yield* ClientInput.phone(request.phone)
        const owner = yield* users.findByPhone(phone)
        // Nothing to send to a number nobody has, to a confirmed one, or without a change pending.
        if (Option.isNone(owner)) return Option.none<string>()
        const user = owner.value
        const now = new Date(yield* Clock.currentTimeMillis)
        if (request.type === "phone_change") {
          if (Option.isNone(user.phoneChange)) return Option.none<string>()
          yield* ChangePhone.request({ user, to: user.phoneChange.value, channel: "sms", now })
          return Option.none<string>()
        }
        if (Option.isSome(user.phoneConfirmedAt)) return Option.none<string>()
        yield* SendVerification.takeTextQuota(phone, now)
        return Option.some(
          yield* Effect.flatMap(Transactions, (transactions) =>
            transactions.run(
              Effect.zipLeft(
                SendSms.send({
                  user,
                  purpose: "confirmation",
                  otpType: "confirmation",
                  to: phone,
                  channel: "sms",
                  now
                }),
                users.update(user.id, { confirmationSentAt: Option.some(now) }, now).pipe(Effect.orDie)
              )
            )
          )
        )
      }
      const email = yield* ClientInput.email(request.email)
      const owner = yield* users.findByEmail(email)
      if (Option.isNone(owner)) return Option.none<string>()
      const user = owner.value
      const now = new Date(yield* Clock.currentTimeMillis)
      if (request.type === "email_change") {
        // Nothing to send when no change is pending; otherwise its mails again, to both addresses.
        if (Option.isNone(user.emailChange)) return Option.none<string>()
        yield* ChangeEmail.request({
          user,
          to: user.emailChange.value,
          redirectTo: settings.redirectTarget(request.redirectTo),
          pkce: challenge,
          now
        })
        return Option.none<string>()
      }
      if (Option.isSome(user.emailConfirmedAt)) return Option.none<string>()
      const spacing = settings.verification.spacing
      yield* SendVerification.takeMailQuota(1, now)
      return yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(
          Effect.zipRight(
            SendVerification.prepare({
              user,
              purpose: "confirmation",
              kind: "confirmation",
              type: "signup",
              to: email,
              redirectTo: settings.redirectTarget(request.redirectTo),
              spacing: Option.some(spacing),
              pkce: { challenge, authenticationMethod: "email/signup" },
              now
            }).pipe(Effect.flatMap((prepared) => SendVerification.write(prepared, "mail"))),
            users.update(user.id, { confirmationSentAt: Option.some(now) }, now)
          )
        )
      ).pipe(
        Effect.catchTags({
          IssuedTooSoon: (error) => SendVerification.sentTooRecently(error, spacing, now),
          // Deleted, or its address taken over, a moment ago: as if it had not been there.
          UserNotFound: () => Effect.void,
          EmailExists: () => Effect.void,
          PhoneExists: () => Effect.void
        }),
        Effect.as(Option.none<string>())
      )
    })
  )
)
