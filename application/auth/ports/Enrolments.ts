import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { FlowState } from "../../../domain/auth/FlowState.js"
import type { Message } from "../../../domain/auth/Mail.js"
import type { OneTimeToken } from "../../../domain/auth/OneTimeToken.js"
import type { Identity } from "../../../domain/Identity.js"
import type { User } from "../../../domain/User.js"
import type { EmailExists, IdentityExists, PhoneExists } from "./UserRepository.js"

/**
 * A new user who must confirm their address, with everything the confirmation needs: their
 * identities, the one-time token of the mail, the PKCE flow its link ends in (when the request
 * sent a challenge) and the mail itself, queued.
 */
export interface Enrolment {
  readonly user: User
  /** Each belongs to `user`. */
  readonly identities: ReadonlyArray<Identity>
  /** The PHC string of the user's password; none: signs in by mail only. */
  readonly passwordHash: Option.Option<string>
  /** Named by the token (`flowStateId`), when there is one. */
  readonly flow: Option.Option<FlowState>
  /** The user's first token: nothing of the user's can come too soon. */
  readonly token: OneTimeToken
  readonly mail: Message
  readonly now: Date
}

/**
 * Writes a new user together with the token and the mail that confirm them: all of it or, when
 * the address, the number or an identity is someone's already, none of it. What
 * `UserRepository.insert`, `FlowStateStore.create`, `OneTimeTokenStore.issue` and
 * `MailOutbox.enqueue` write in a transaction, as one step: the sign-in by mail of a new
 * address is the busiest writer of the service, and on Postgres concurrent enrolments share one
 * statement where each would otherwise hold a transaction of five round trips. Joins the
 * transaction it runs in (`Transactions.run`).
 */
export class Enrolments extends Context.Tag("latchkey/auth/Enrolments")<
  Enrolments,
  {
    readonly enrol: (enrolment: Enrolment) => Effect.Effect<void, EmailExists | PhoneExists | IdentityExists>
  }
>() {}
