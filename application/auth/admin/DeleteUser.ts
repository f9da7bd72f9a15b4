import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { UserId } from "../../../domain/Ids.js"
import * as Telemetry from "../../Telemetry.js"
import * as AuthError from "../AuthError.js"
import { UserRepository } from "../ports/UserRepository.js"

/**
 * DELETE /admin/users/{user_id} (supabase-js `admin.deleteUser(id, shouldSoftDelete)`): the user
 * and everything of theirs, or, soft, the user kept but unidentifiable and signed out
 * everywhere (UserRepository.softDelete).
 */
export const deleteUser = Telemetry.fn("admin.DeleteUser")((id: UserId, soft: boolean) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    const now = new Date(yield* Clock.currentTimeMillis)
    yield* (soft ? users.softDelete(id, now) : users.delete(id)).pipe(
      Effect.catchTag("UserNotFound", () => Effect.fail(new AuthError.NoSuchUser()))
    )
  })
)
