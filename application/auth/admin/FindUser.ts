import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { UserId } from "../../../domain/Ids.js"
import * as Telemetry from "../../Telemetry.js"
import * as AuthError from "../AuthError.js"
import { UserRepository } from "../ports/UserRepository.js"

const isUserId = Schema.is(UserId)

/** The `{user_id}` of an admin path: a UUID, else 404 `validation_failed` as Supabase Auth says. */
export const parseId = (raw: string): Effect.Effect<UserId, AuthError.MalformedUserId> =>
  isUserId(raw) ? Effect.succeed(raw) : Effect.fail(new AuthError.MalformedUserId())

/**
 * GET /admin/users/{user_id}: the user with its identities and factors (Supabase Auth loads
 * both with the user), a soft-deleted one too (with `deleted_at`, as there), or
 * `user_not_found`. One read.
 */
export const findUser = Telemetry.fn("admin.FindUser")((id: UserId) =>
  Effect.gen(function* () {
    const found = yield* Effect.flatMap(UserRepository, (users) => users.findAccount(id))
    if (Option.isNone(found)) return yield* new AuthError.NoSuchUser()
    return found.value
  })
)
