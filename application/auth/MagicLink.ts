import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { User } from "../../domain/User.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import * as ClientInput from "./ClientInput.js"
import * as NewUser from "./NewUser.js"
import { Transactions } from "./ports/Transactions.js"
import { UserRepository } from "./ports/UserRepository.js"
import * as SendVerification from "./SendVerification.js"

/** POST /magiclink, or POST /otp with an email, as decoded (`""` when absent). */
export interface MagicLinkRequest {
  readonly email: string
  /** `create_user`: make the user when the address is nobody's (/otp's default; /magiclink always). */
  readonly createUser: boolean
  /** `user_metadata` of a user made here. */
  readonly data: Readonly<Record<string, unknown>>
  readonly redirectTo: string
  readonly codeChallenge: string
  readonly codeChallengeMethod: string
}

/**
 * A passwordless sign-in by mail (supabase-js `signInWithOtp({ email })`): a confirmed user gets
 * a magic link (and its code); an unconfirmed one, or one made here, the confirmation mail, whose
 * link signs in the same way. At most one mail per kind and `SMTP_MAX_FREQUENCY`. Every outcome
 * answers `{}` — also for an address nobody has when `create_user` is false, where Supabase Auth
 * answers 422 `otp_disabled` and so tells whether an account exists (docs/compatibility.md).
 */
export const sendMagicLink = Telemetry.fn("MagicLink.sendMagicLink")((request: MagicLinkRequest) =>
  SendVerification.evenlyTimed(
    Effect.gen(function* () {
      const settings = yield* AuthSettings
      if (request.email === "") {
        return yield* new AuthError.MagicLinkWithoutEmail()
      }
      if (!settings.emailEnabled) return yield* new AuthError.EmailLoginsDisabled()
      const challenge = yield* ClientInput.pkceChallenge(request.codeChallenge, request.codeChallengeMethod)
      const email = yield* ClientInput.email(request.email)
      const users = yield* UserRepository
      const transactions = yield* Transactions
      const existing = yield* users.findByEmail(email)
      const now = new Date(yield* Clock.currentTimeMillis)
      yield* SendVerification.takeMailQuota(1, now)
      const spacing = settings.verification.spacing
      const redirectTo = settings.redirectTarget(request.redirectTo)
      const confirmation = (user: User): SendVerification.Verification => ({
        user,
        purpose: "confirmation",
        kind: "confirmation",
        type: "signup",
        to: email,
        redirectTo,
        spacing: Option.some(spacing),
        // Supabase Auth sends an unconfirmed address through its sign-up, whose flow this is.
        pkce: { challenge, authenticationMethod: "email/signup" },
        now
      })

      if (Option.isSome(existing)) {
        const user = existing.value
        const mail = Option.isSome(user.emailConfirmedAt)
          ? SendVerification.prepare({
              user,
              purpose: "magic_link",
              kind: "magic_link",
              type: "magiclink",
              to: email,
              redirectTo,
              spacing: Option.some(spacing),
              pkce: { challenge, authenticationMethod: "magiclink" },
              now
            }).pipe(Effect.flatMap((prepared) => SendVerification.write(prepared, "mail")))
          : SendVerification.prepare(confirmation(user)).pipe(
              Effect.flatMap((prepared) => SendVerification.write(prepared, "mail"))
            )
        return yield* transactions
          .run(mail)
          .pipe(
            Effect.catchTag("IssuedTooSoon", (error) => SendVerification.sentTooRecently(error, spacing, now))
          )
      }
      if (!request.createUser) return
      if (settings.disableSignup) return yield* new AuthError.OtpSignupsDisabled()

      // A new user without a password; the confirmation mail signs them in.
      const { user, identity } = yield* NewUser.ofEmail({
        email,
        aud: settings.audience,
        data: request.data,
        madeBy: "signUp",
        stamps: { confirmationSentAt: Option.some(now) },
        now
      })
      yield* SendVerification.prepare(confirmation(user))
        .pipe(
          Effect.flatMap((prepared) =>
            SendVerification.write(prepared, { identities: [identity], passwordHash: Option.none() })
          )
        )
        .pipe(
          Effect.catchTags({
            // Made by a request a moment ago, which mailed the confirmation itself.
            EmailExists: () => Effect.void,
            PhoneExists: () => Effect.void,
            IdentityExists: () => Effect.void
          })
        )
      yield* Telemetry.annotate("user.id", user.id)
    })
  )
)
