import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { UserId } from "../../../domain/Ids.js"
import * as User from "../../../domain/User.js"
import * as Telemetry from "../../Telemetry.js"
import * as AuthError from "../AuthError.js"
import { parseFactorId } from "../FactorInput.js"
import { FactorStore } from "../ports/FactorStore.js"
import { findUser } from "./FindUser.js"

/** What PUT /admin/users/{user_id}/factors/{factor_id} may change; none or `""`: unchanged. */
export interface FactorChanges {
  readonly friendlyName: Option.Option<string>
  readonly phone: Option.Option<string>
}

/**
 * PUT /admin/users/{user_id}/factors/{factor_id} (supabase-js `admin.mfa.updateFactor` and
 * Supabase Auth's `adminUserUpdateFactor`): a new friendly name, and for a phone factor a new
 * number (E.164 checked; ignored for another type, as there). A name another factor of the
 * user has is 422 `mfa_factor_name_conflict` (Supabase Auth lets its unique index fail with a
 * 500).
 */
export const updateFactor = Telemetry.fn("admin.UpdateFactor")(
  (userId: UserId, rawFactorId: string, changes: FactorChanges) =>
    Effect.gen(function* () {
      yield* findUser(userId)
      const factorId = yield* parseFactorId(rawFactorId)
      const store = yield* FactorStore
      const found = yield* store.find(userId, factorId)
      if (Option.isNone(found)) return yield* new AuthError.FactorNotFound()
      const friendlyName = Option.filter(changes.friendlyName, (name) => name !== "")
      // A number for a factor of another type is ignored, as Supabase Auth ignores it.
      const requestedPhone = Option.filter(
        changes.phone,
        (phone) => phone !== "" && found.value.factor.factorType === "phone"
      )
      let phone = Option.none<string>()
      if (Option.isSome(requestedPhone)) {
        phone = Option.some(
          yield* Either.match(User.parsePhone(requestedPhone.value), {
            onLeft: () => Effect.fail(new AuthError.MalformedPhone()),
            onRight: (parsed): Effect.Effect<string> => Effect.succeed(parsed)
          })
        )
      }
      const now = new Date(yield* Clock.currentTimeMillis)
      const updated = yield* store.update(userId, factorId, { friendlyName, phone }, now).pipe(
        Effect.catchTags({
          FactorNameTaken: (taken) => new AuthError.FactorNameConflict({ friendlyName: taken.friendlyName }),
          FactorPhoneTaken: () => new AuthError.VerifiedPhoneFactorExists()
        })
      )
      if (Option.isNone(updated)) return yield* new AuthError.FactorNotFound()
      return updated.value
    })
)
