import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { SessionId } from "../../domain/auth/Session.js"
import type { UserId } from "../../domain/Ids.js"
import * as Telemetry from "../Telemetry.js"
import { OneTimeTokenStore } from "./ports/OneTimeTokenStore.js"
import { SessionStore } from "./ports/SessionStore.js"
import { UserRepository } from "./ports/UserRepository.js"

/**
 * A new password hash for the user, and what a password change means for their sessions, as
 * Supabase Auth's `UpdatePassword` does it: whoever held a session under the old password
 * (a stolen one included) is signed out. Every session of the user ends but `keep`, the one
 * that made the change (a recovery link's session among them); none kept — an administrator's
 * change, or a token without a session — ends them all. Their refresh tokens stop at once, and
 * their access tokens wherever the session is looked up (Authenticate), as after a logout.
 * The user's one-time tokens end too, as Supabase Auth clears them: a confirmation, recovery,
 * change or reauthentication link or code sent before the change no longer works after it, and
 * the user no longer says when one was sent (`confirmation_sent_at`, `recovery_sent_at`,
 * `email_change_sent_at`, `phone_change_sent_at`, `reauthentication_sent_at`); a pending
 * change's new address stays, as there.
 *
 * The caller runs it inside `Transactions.run`, so the hash and the revocations land together
 * for every instance: neither a new password with the old sessions alive, nor the reverse.
 */
export const store = Telemetry.fn("PasswordChange.store")(
  (userId: UserId, hash: string, keep: Option.Option<SessionId>, now: Date) =>
    Effect.gen(function* () {
      // The new hash, and when links went out forgotten, as Supabase Auth does: one write. The
      // links themselves end next.
      yield* (yield* UserRepository).changePassword(userId, hash, now)
      yield* (yield* OneTimeTokenStore).endAllOf(userId)
      const sessions = yield* SessionStore
      yield* Option.match(keep, {
        onNone: () => sessions.revokeAll(userId, now),
        onSome: (current) => sessions.revokeOthers(userId, current, now)
      })
    }),
  (userId) => ({ "user.id": userId })
)
