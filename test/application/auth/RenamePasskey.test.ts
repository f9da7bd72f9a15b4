import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { renamePasskey } from "../../../application/auth/RenamePasskey.js"
import { signedInUser, world } from "./support/Factors.js"
import { describedFailureOf } from "./support/Failure.js"
import { authenticator, registered } from "./support/Passkeys.js"

describe("RenamePasskey (PATCH /passkeys/{passkey_id}), on memory adapters", () => {
  it.effect("renames the user's passkey", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const passkey = yield* registered(signedIn, authenticator())
      yield* TestClock.adjust(Duration.minutes(1))
      const renamed = yield* renamePasskey(signedIn, passkey.id, "Laptop")
      expect([renamed.id, renamed.friendlyName, renamed.updatedAt > passkey.updatedAt]).toEqual([
        passkey.id,
        "Laptop",
        true
      ])
      // 120 bytes pass; four-byte characters count four.
      expect((yield* renamePasskey(signedIn, passkey.id, "🔑".repeat(30))).friendlyName).toBe("🔑".repeat(30))
    }).pipe(Effect.provide(world()))
  )

  it.effect("refuses empty and long names, ids that are not UUIDs, and other users' passkeys", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const other = yield* signedInUser()
      const passkey = yield* registered(signedIn, authenticator())
      expect(yield* describedFailureOf(renamePasskey(signedIn, passkey.id, ""))).toBe(
        "validation_failed: friendly_name is required"
      )
      expect(yield* describedFailureOf(renamePasskey(signedIn, passkey.id, "x".repeat(121)))).toBe(
        "validation_failed: friendly_name must be 120 characters or less"
      )
      expect(yield* describedFailureOf(renamePasskey(signedIn, "not-a-uuid", "Laptop"))).toBe(
        "validation_failed: Passkey not found"
      )
      expect(yield* describedFailureOf(renamePasskey(other, passkey.id, "Mine now"))).toBe(
        "validation_failed: Passkey not found"
      )
    }).pipe(Effect.provide(world()))
  )
})
