import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { deletePasskey } from "../../../application/auth/DeletePasskey.js"
import { listPasskeys } from "../../../application/auth/ListPasskeys.js"
import { atAal2, signedInUser, totp, verified, world } from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { authenticator, registered, signedInWith } from "./support/Passkeys.js"

describe("DeletePasskey (DELETE /passkeys/{passkey_id}), on memory adapters", () => {
  it.effect("removes the user's passkey, which then signs nobody in", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const device = authenticator()
      const passkey = yield* registered(signedIn, device)
      expect((yield* deletePasskey(signedIn, passkey.id)).id).toBe(passkey.id)
      expect(yield* listPasskeys(signedIn)).toEqual([])
      expect(yield* failureOf(signedInWith(device))).toBe("webauthn_verification_failed")
      expect(yield* failureOf(deletePasskey(signedIn, passkey.id))).toBe("validation_failed")
    }).pipe(Effect.provide(world()))
  )

  it.effect(
    "answers 404 for other users' passkeys and ids that are not UUIDs, and asks aal2 once a factor is verified",
    () =>
      Effect.gen(function* () {
        const signedIn = yield* signedInUser()
        const other = yield* signedInUser()
        const passkey = yield* registered(signedIn, authenticator())
        expect(yield* describedFailureOf(deletePasskey(other, passkey.id))).toBe(
          "validation_failed: Passkey not found"
        )
        expect(yield* describedFailureOf(deletePasskey(signedIn, "42"))).toBe(
          "validation_failed: Passkey not found"
        )
        yield* verified(signedIn, yield* totp(signedIn, "app"))
        expect(yield* failureOf(deletePasskey(signedIn, passkey.id))).toBe("insufficient_aal")
        expect(yield* failureOf(deletePasskey(atAal2(signedIn), passkey.id))).toBe("ok")
      }).pipe(Effect.provide(world()))
  )
})
