import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { createUser } from "../../../../application/auth/admin/CreateUser.js"
import { updateUser } from "../../../../application/auth/admin/UpdateUser.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import { UserId } from "../../../../domain/Ids.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import { failureOf } from "../support/Failure.js"
import { adminNoChange, freshEmail, signedUp } from "../support/Scenarios.js"

describe("UpdateUser (PUT /admin/users/{user_id}), on memory adapters", () => {
  it.effect("sets what it is given: app metadata and a new address, confirmed", () =>
    Effect.gen(function* () {
      const grant = yield* signedUp()
      const email = freshEmail()
      const updated = yield* updateUser(grant.user.id, {
        ...adminNoChange,
        email,
        emailConfirm: true,
        appMetadata: Option.some({ plan: "pro" })
      })
      expect(Option.getOrThrow(updated.user.email)).toBe(email)
      expect(updated.user.appMetadata).toMatchObject({ plan: "pro" })
      // The email identity carries the new address, verified as the request says.
      const emailIdentity = () => updated.identities.find((identity) => identity.provider === "email")
      expect(emailIdentity()?.identityData).toMatchObject({ email, email_verified: true })
      expect(emailIdentity()?.email).toEqual(Option.some(email))
      const next = freshEmail()
      const unconfirmed = yield* updateUser(grant.user.id, { ...adminNoChange, email: next })
      expect(
        unconfirmed.identities.find((identity) => identity.provider === "email")?.identityData
      ).toMatchObject({
        email: next,
        email_verified: false
      })
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("confirming an address marks the metadata first, then merges what is given over it", () =>
    Effect.gen(function* () {
      const users = yield* UserRepository
      const made = yield* createUser({ ...adminNoChange, email: freshEmail(), role: "reader" })
      const confirmed = yield* updateUser(made.user.id, {
        ...adminNoChange,
        emailConfirm: true,
        role: " editor "
      })
      expect(Option.isSome(confirmed.user.emailConfirmedAt)).toBe(true)
      expect(confirmed.user.role).toBe("editor")
      expect(confirmed.user.userMetadata).toEqual({ email_verified: true })
      // What is given merges over what is stored, the confirmation's mark included.
      yield* users.update(made.user.id, { userMetadata: { theme: "dark", email_verified: true } }, new Date())
      const overruled = yield* updateUser(made.user.id, {
        ...adminNoChange,
        emailConfirm: true,
        userMetadata: Option.some({ email_verified: false })
      })
      expect(overruled.user.userMetadata).toEqual({ theme: "dark", email_verified: false })
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("refuses an unknown user, and an address another user has", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(updateUser(UserId.make(crypto.randomUUID()), adminNoChange))).toBe(
        "user_not_found"
      )
      const taken = yield* signedUp()
      const grant = yield* signedUp()
      const email = Option.getOrThrow(taken.user.email)
      expect(yield* failureOf(updateUser(grant.user.id, { ...adminNoChange, email }))).toBe("email_exists")
    }).pipe(Effect.provide(MemoryServices.layer()))
  )
})
