import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import { unenrollFactor } from "../../../application/auth/UnenrollFactor.js"
import { Factor, FactorId } from "../../../domain/auth/Factor.js"
import {
  atAal2,
  raisedBy,
  sessionOf,
  signedInUser,
  totp,
  twoSessions,
  verified,
  world
} from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { freshEmail, mailsTo } from "./support/Scenarios.js"

describe("UnenrollFactor (DELETE /factors/{factor_id}), on memory adapters", () => {
  it.effect("removes an unverified factor at aal1 and answers it", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const id = yield* totp(signedIn, "app")
      expect((yield* unenrollFactor(signedIn, id)).id).toBe(id)
      expect(yield* Effect.flatMap(FactorStore, (store) => store.list(signedIn.user.id))).toEqual([])
      expect(yield* describedFailureOf(unenrollFactor(signedIn, id))).toBe(
        "mfa_factor_not_found: Factor not found"
      )
    }).pipe(Effect.provide(world()))
  )

  it.effect("removes a verified factor only from an aal2 session", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const id = yield* totp(signedIn, "app")
      yield* verified(signedIn, id)
      expect(yield* describedFailureOf(unenrollFactor(signedIn, id))).toBe(
        "insufficient_aal: AAL2 required to unenroll verified factor"
      )
      expect(yield* failureOf(unenrollFactor(atAal2(signedIn), id))).toBe("ok")
    }).pipe(Effect.provide(world()))
  )

  it.effect("puts the sessions the factor raised back to aal1 and leaves the others", () =>
    Effect.gen(function* () {
      const { elsewhere, signedIn } = yield* twoSessions()
      const removed = yield* totp(signedIn, "app")
      const kept = yield* totp(signedIn, "phone app")
      yield* verified(signedIn, removed)
      yield* verified(signedIn, kept)
      const before = yield* raisedBy(signedIn, removed)
      const other = yield* raisedBy(elsewhere, kept)
      yield* unenrollFactor(atAal2(signedIn), removed)
      const after = yield* sessionOf(signedIn)
      expect([after.aal, after.factorId, after.amr.map((entry) => entry.method)]).toEqual([
        "aal1",
        Option.none(),
        before.amr.filter((entry) => entry.method !== "totp").map((entry) => entry.method)
      ])
      expect(yield* sessionOf(elsewhere)).toEqual(other)
    }).pipe(Effect.provide(world()))
  )

  it.effect("answers 404s for an id that is not a UUID and for another user's factor", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const other = yield* signedInUser()
      const theirs = yield* totp(other, "app")
      expect(yield* describedFailureOf(unenrollFactor(signedIn, "not-a-uuid"))).toBe(
        "validation_failed: factor_id must be an UUID"
      )
      expect(yield* failureOf(unenrollFactor(signedIn, theirs))).toBe("mfa_factor_not_found")
      expect((yield* Effect.flatMap(FactorStore, (store) => store.list(other.user.id))).length).toBe(1)
    }).pipe(Effect.provide(world()))
  )

  it.effect("takes the recovery codes, and the sessions they raised, with the last other factor", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const id = yield* totp(signedIn, "app")
      yield* verified(signedIn, id)
      const store = yield* FactorStore
      const codesId = FactorId.make(crypto.randomUUID())
      yield* store.createRecoveryCodes(
        new Factor({
          id: codesId,
          userId: signedIn.user.id,
          friendlyName: "Recovery codes",
          factorType: "recovery_code",
          status: "verified",
          phone: Option.none(),
          lastChallengedAt: Option.none(),
          createdAt: new Date(0),
          updatedAt: new Date(0)
        }),
        []
      )
      expect((yield* store.list(signedIn.user.id)).length).toBe(2)
      // A session a recovery code raised goes back to aal1 with the codes.
      yield* raisedBy(signedIn, codesId, "recovery_code")
      yield* unenrollFactor(atAal2(signedIn), id)
      expect(yield* store.list(signedIn.user.id)).toEqual([])
      const after = yield* sessionOf(signedIn)
      expect([after.aal, after.factorId]).toEqual(["aal1", Option.none()])
      expect(after.amr.some((entry) => entry.method === "mfa/recovery_code")).toBe(false)
    }).pipe(Effect.provide(world()))
  )

  it.effect("tells the user's address with MAILER_NOTIFICATIONS_MFA_FACTOR_UNENROLLED_ENABLED", () =>
    Effect.gen(function* () {
      const email = freshEmail()
      const signedIn = yield* signedInUser(email)
      yield* mailsTo(email)
      yield* unenrollFactor(signedIn, yield* totp(signedIn, "app"))
      expect(yield* mailsTo(email)).toEqual([
        {
          kind: "mfa_factor_unenrolled_notification",
          variables: expect.objectContaining({ Email: email, FactorType: "totp" })
        }
      ])
    }).pipe(Effect.provide(world({}, { notifications: new Set(["mfa_factor_unenrolled_notification"]) })))
  )
})
