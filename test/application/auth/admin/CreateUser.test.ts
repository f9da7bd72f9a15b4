import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { createUser } from "../../../../application/auth/admin/CreateUser.js"
import { ensureSigningKey } from "../../../../application/auth/EnsureSigningKey.js"
import { signInWithPassword } from "../../../../application/auth/SignInWithPassword.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import { describedFailureOf, failureOf } from "../support/Failure.js"
import { adminNoChange, client, freshEmail, password } from "../support/Scenarios.js"

describe("CreateUser (POST /admin/users), on memory adapters", () => {
  it.effect("makes a user with a password, confirmed when asked, who can sign in", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const email = freshEmail()
      const made = yield* createUser({
        ...adminNoChange,
        email,
        password: Option.some(password),
        emailConfirm: true
      })
      expect(Option.getOrThrow(made.user.email)).toBe(email)
      expect(Option.isSome(made.user.emailConfirmedAt)).toBe(true)
      expect(made.identities.map((identity) => identity.provider)).toEqual(["email"])
      const signedIn = yield* signInWithPassword({ email, phone: "", password, client })
      expect(signedIn.grant.user.id).toBe(made.user.id)
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect(
    "as Supabase Auth: the role trimmed, app_metadata over the providers, a confirmation in the metadata",
    () =>
      Effect.gen(function* () {
        const made = yield* createUser({
          ...adminNoChange,
          email: freshEmail(),
          role: " editor ",
          emailConfirm: true,
          appMetadata: Option.some({ provider: "imported", plan: "pro" }),
          userMetadata: Option.some({ full_name: "Ada" })
        })
        expect(made.user.role).toBe("editor")
        expect(made.user.appMetadata).toEqual({ provider: "imported", providers: ["email"], plan: "pro" })
        expect(made.user.userMetadata).toEqual({ full_name: "Ada", email_verified: true })
        // Not confirmed: the metadata is what was given.
        const unconfirmed = yield* createUser({
          ...adminNoChange,
          email: freshEmail(),
          userMetadata: Option.some({ full_name: "Bo" })
        })
        expect(unconfirmed.user.userMetadata).toEqual({ full_name: "Bo" })
      }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("takes an id in the forms Supabase Auth parses, and keeps it canonical and lower-case", () =>
    Effect.gen(function* () {
      const forms = [
        (uuid: string) => uuid.toUpperCase(),
        (uuid: string) => uuid.replaceAll("-", ""),
        (uuid: string) => `{${uuid}}`,
        (uuid: string) => `urn:uuid:${uuid}`
      ]
      for (const form of forms) {
        const uuid = crypto.randomUUID()
        const made = yield* createUser({ ...adminNoChange, email: freshEmail(), id: form(uuid) })
        expect(made.user.id).toBe(uuid)
      }
      expect(
        yield* failureOf(createUser({ ...adminNoChange, email: freshEmail(), id: "{not-a-uuid}" }))
      ).toBe("validation_failed")
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("refuses a user without address or phone, and an address already taken", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(createUser(adminNoChange))).toBe("validation_failed")
      const email = freshEmail()
      yield* createUser({ ...adminNoChange, email })
      expect(yield* failureOf(createUser({ ...adminNoChange, email }))).toBe("email_exists")
      const phone = "+15555550199"
      yield* createUser({ ...adminNoChange, phone })
      expect(yield* describedFailureOf(createUser({ ...adminNoChange, phone }))).toBe(
        "phone_exists: Phone number already registered by another user"
      )
    }).pipe(Effect.provide(MemoryServices.layer()))
  )
})
