import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { createUser } from "../../../application/auth/admin/CreateUser.js"
import { generateLink } from "../../../application/auth/admin/GenerateLink.js"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import { signInWithPassword } from "../../../application/auth/SignInWithPassword.js"
import { unlinkIdentity } from "../../../application/auth/UnlinkIdentity.js"
import { verify } from "../../../application/auth/Verify.js"
import type { Email, User } from "../../../domain/User.js"
import * as Fixtures from "../../support/auth/Fixtures.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"
import { adminNoChange, client, freshEmail, mailsTo, password } from "./support/Scenarios.js"

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

/** A GitHub identity of `user` carrying `address`, verified by GitHub or not, older than the rest. */
const addGithubIdentity = (user: User, address: Email, verified: boolean) =>
  Effect.flatMap(UserRepository, (users) =>
    users.addIdentity(
      Fixtures.emailIdentity(user, {
        provider: "github",
        providerId: `github-${address}`,
        identityData: { sub: `github-${address}`, email: address, email_verified: verified },
        email: Option.some(address),
        createdAt: Fixtures.t0
      })
    )
  )

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

  it.effect("an address that gives way to another identity's voids the links sent to it", () =>
    Effect.gen(function* () {
      const { made, signedIn } = yield* twoIdentities
      const email = Option.getOrThrow(made.user.email)
      const other = Fixtures.email()
      const users = yield* UserRepository
      yield* addGithubIdentity(made.user, other, true)
      const link = yield* generateLink({
        type: "recovery",
        email,
        newEmail: "",
        password: "",
        data: {},
        redirectTo: ""
      })
      const emailIdentity = made.identities.find((identity) => identity.provider === "email")?.id ?? ""
      yield* unlinkIdentity(signedIn, emailIdentity)

      const after = Option.getOrThrow(yield* users.findById(made.user.id))
      expect(after.email).toEqual(Option.some(other))
      expect(after.recoverySentAt).toEqual(Option.none())
      // The link went to the address the user no longer has: it ended with it.
      const used = verify({
        type: "recovery",
        token: "",
        tokenHash: link.hashedToken,
        email: "",
        phone: "",
        client
      })
      expect(yield* failureOf(used)).toBe("otp_expired")
    }).pipe(Effect.provide(MemoryServices.layer({ manualLinkingEnabled: true })))
  )

  it.effect("tells the address the user had, with the metadata as the unlinking left it", () =>
    Effect.gen(function* () {
      const { made, signedIn } = yield* twoIdentities
      const email = Option.getOrThrow(made.user.email)
      const other = Fixtures.email()
      const users = yield* UserRepository
      yield* addGithubIdentity(made.user, other, false)
      yield* mailsTo(email)
      const emailIdentity = made.identities.find((identity) => identity.provider === "email")?.id ?? ""
      yield* unlinkIdentity(signedIn, emailIdentity)

      const after = Option.getOrThrow(yield* users.findById(made.user.id))
      expect([after.email, after.emailConfirmedAt]).toEqual([Option.some(other), Option.none()])
      expect(after.userMetadata.email_verified).toBe(false)
      expect(yield* mailsTo(email)).toEqual([
        {
          kind: "identity_unlinked_notification",
          variables: expect.objectContaining({
            Email: email,
            Provider: "email",
            Data: expect.objectContaining({ email_verified: false })
          })
        }
      ])
    }).pipe(
      Effect.provide(
        MemoryServices.layer({
          manualLinkingEnabled: true,
          mailerAutoconfirm: false,
          notifications: new Set(["identity_unlinked_notification"])
        })
      )
    )
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
