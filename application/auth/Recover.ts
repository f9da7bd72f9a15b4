import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import * as ClientInput from "./ClientInput.js"
import { Transactions } from "./ports/Transactions.js"
import { UserRepository } from "./ports/UserRepository.js"
import * as SendVerification from "./SendVerification.js"

/**
 * POST /recover (supabase-js `resetPasswordForEmail`): a recovery mail — a link and a code that
 * sign the user in, after which the application sets the new password with `updateUser` — at
 * most once per `SMTP_MAX_FREQUENCY`. An address nobody has gets the same empty answer.
 */
export const recover = Telemetry.fn("Recover.recover")(
  (input: {
    readonly email: string
    readonly redirectTo: string
    readonly codeChallenge: string
    readonly codeChallengeMethod: string
  }) =>
    SendVerification.evenlyTimed(
      Effect.gen(function* () {
        if (input.email === "") return yield* new AuthError.RecoveryWithoutEmail()
        const settings = yield* AuthSettings
        const email = yield* ClientInput.email(input.email)
        const challenge = yield* ClientInput.pkceChallenge(input.codeChallenge, input.codeChallengeMethod)
        const owner = yield* Effect.flatMap(UserRepository, (users) => users.findByEmail(email))
        if (Option.isNone(owner)) return
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* SendVerification.takeMailQuota(1, now)
        const spacing = settings.verification.spacing
        yield* Effect.flatMap(Transactions, (transactions) =>
          transactions.run(
            SendVerification.prepare({
              user: owner.value,
              purpose: "recovery",
              kind: "recovery",
              type: "recovery",
              to: email,
              redirectTo: settings.redirectTarget(input.redirectTo),
              spacing: Option.some(spacing),
              pkce: { challenge, authenticationMethod: "recovery" },
              now
            }).pipe(Effect.flatMap((prepared) => SendVerification.write(prepared, "mail")))
          )
        ).pipe(
          Effect.catchTag("IssuedTooSoon", (error) => SendVerification.sentTooRecently(error, spacing, now))
        )
      })
    )
)
