import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { User } from "../../../domain/User.js"
import * as Telemetry from "../../Telemetry.js"
import * as AuthError from "../AuthError.js"
import { AuthSettings } from "../AuthSettings.js"
import * as ClientInput from "../ClientInput.js"
import * as NewUser from "../NewUser.js"
import { Transactions } from "../ports/Transactions.js"
import { UserRepository } from "../ports/UserRepository.js"
import * as SendVerification from "../SendVerification.js"

/** POST /invite, as decoded (`""` when absent). */
export interface InviteRequest {
  readonly email: string
  readonly data: Readonly<Record<string, unknown>>
  /** `redirect_to` of the query (supabase-js `admin.inviteUserByEmail(email, { redirectTo })`). */
  readonly redirectTo: string
}

/**
 * POST /invite (supabase-js `admin.inviteUserByEmail`): a user without a password, stamped
 * `invited_at`, with an invitation mail whose link or code (`type: "invite"`) confirms the
 * address and signs in, written together. Inviting an unconfirmed user again mails a new
 * invitation; a confirmed one is `email_exists`, as in Supabase Auth.
 */
export const inviteUser = Telemetry.fn("InviteUser.inviteUser")((request: InviteRequest) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const users = yield* UserRepository
    const transactions = yield* Transactions
    const email = yield* ClientInput.email(request.email)
    const existing = yield* users.findByEmail(email)
    if (Option.exists(existing, (user) => Option.isSome(user.emailConfirmedAt))) {
      return yield* new AuthError.EmailInUse()
    }
    const now = new Date(yield* Clock.currentTimeMillis)
    yield* SendVerification.takeMailQuota(1, now)
    const invitation = (user: User) =>
      SendVerification.prepare({
        user,
        purpose: "invite",
        kind: "invite",
        type: "invite",
        to: email,
        redirectTo: settings.redirectTarget(request.redirectTo),
        // An administrator's act, not a request anyone can repeat: not spaced.
        spacing: Option.none(),
        now
      })
        .pipe(Effect.flatMap((prepared) => SendVerification.write(prepared, "mail")))
        .pipe(Effect.orDie)

    if (Option.isSome(existing)) {
      const invited = yield* transactions
        .run(
          Effect.zipLeft(
            users.update(existing.value.id, { invitedAt: Option.some(now) }, now),
            invitation(existing.value)
          )
        )
        .pipe(Effect.catchAll(() => new AuthError.NoSuchUser()))
      return { user: invited, identities: yield* users.identitiesOf(invited.id) }
    }

    const { user, identity } = yield* NewUser.ofEmail({
      email,
      aud: settings.audience,
      data: request.data,
      madeBy: "admin",
      stamps: { invitedAt: Option.some(now) },
      now
    })
    yield* transactions
      .run(Effect.zipRight(users.insert(user, [identity], Option.none()), invitation(user)))
      .pipe(Effect.catchAll(() => new AuthError.EmailInUse()))
    yield* Telemetry.annotate("user.id", user.id)
    return { user, identities: [identity] }
  })
)
