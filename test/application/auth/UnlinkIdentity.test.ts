import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { createUser } from "../../../application/auth/admin/CreateUser.js"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { signInWithPassword } from "../../../application/auth/SignInWithPassword.js"
import { unlinkIdentity } from "../../../application/auth/UnlinkIdentity.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"
import { adminNoChange, client, freshEmail, password } from "./support/Scenarios.js"

/** A confirmed user with an email and a phone identity, signed in by address. */
const twoIdentities = Effect.gen(function* () {
  yield* ensureSigningKey
  const email = freshEmail()
  const phone = `1555${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`
  const made = yield* createUser({
    ...adminNoChange,
    email,
    phone,
    password: Option.some(password),
    emailConfirm: true,
    phoneConfirm: true
  })
  const grant = (yield* signInWithPassword({ email, phone: "", password, client })).grant
  return { made, signedIn: yield* Authenticate.user(Redacted.value(grant.access.token)) }
})

describe("UnlinkIdentity (DELETE /user/identities/{id}), on memory adapters", () => {
  it.effect("removes one identity, never the last; an identity the user lacks is not found", () =>
    Effect.gen(function* () {
      const { made, signedIn } = yield* twoIdentities
      const byProvider = (provider: string) =>
        made.identities.find((identity) => identity.provider === provider)?.id ?? ""
      expect(yield* failureOf(unlinkIdentity(signedIn, crypto.randomUUID()))).toBe("identity_not_found")
      yield* unlinkIdentity(signedIn, byProvider("phone"))
      expect(yield* failureOf(unlinkIdentity(signedIn, byProvider("email")))).toBe(
        "single_identity_not_deletable"
      )
    }).pipe(Effect.provide(MemoryServices.layer({ manualLinkingEnabled: true })))
  )

  it.effect("is refused while manual linking is off", () =>
    Effect.gen(function* () {
      const { made, signedIn } = yield* twoIdentities
      expect(yield* failureOf(unlinkIdentity(signedIn, made.identities[0]?.id ?? ""))).toBe(
        "manual_linking_disabled"
      )
    }).pipe(Effect.provide(MemoryServices.layer()))
  )
})
