import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { UserId } from "../../../domain/Ids.js"
import * as Telemetry from "../../Telemetry.js"
import * as AuthError from "../AuthError.js"
import { FactorStore } from "../ports/FactorStore.js"
import { OneTimeTokenStore } from "../ports/OneTimeTokenStore.js"
import { PasskeyStore } from "../ports/PasskeyStore.js"
import { Transactions } from "../ports/Transactions.js"
import { UserRepository } from "../ports/UserRepository.js"

/**
 * DELETE /admin/users/{user_id} (supabase-js `admin.deleteUser(id, shouldSoftDelete)`): the user
 * and everything of theirs, or, soft, the user kept but unidentifiable and signed out
 * everywhere (UserRepository.softDelete), with nothing left that could sign anyone in as them —
 * their factors, passkeys and one-time tokens go, as Supabase Auth's soft delete removes them.
 * Soft-deleted again, they stay as they are.
 */
export const deleteUser = Telemetry.fn("admin.DeleteUser")((id: UserId, soft: boolean) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    const now = new Date(yield* Clock.currentTimeMillis)
    const softly = Effect.gen(function* () {
      yield* users.softDelete(id, now)
      yield* Effect.flatMap(FactorStore, (factors) => factors.removeAll(id))
      yield* Effect.flatMap(PasskeyStore, (passkeys) => passkeys.removeAll(id))
      yield* Effect.flatMap(OneTimeTokenStore, (tokens) => tokens.endAllOf(id))
    })
    yield* (
      soft ? Effect.flatMap(Transactions, (transactions) => transactions.run(softly)) : users.delete(id)
    ).pipe(Effect.catchTag("UserNotFound", () => Effect.fail(new AuthError.NoSuchUser())))
  })
)
