import { randomUUID } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as Unlinking from "../../../domain/auth/Unlinking.js"
import { IdentityId } from "../../../domain/Ids.js"
import * as Time from "../../../domain/Time.js"
import * as Fixtures from "../../support/auth/Fixtures.js"

const user = Fixtures.user({
  email: Option.some(Fixtures.email("ada@example.com")),
  emailConfirmedAt: Option.some(Fixtures.t0),
  appMetadata: { provider: "github", providers: ["github", "gitlab", "phone"] }
})

const identity = (provider: string, email: string | undefined, verified: boolean, offset: number) =>
  Fixtures.emailIdentity(user, {
    id: IdentityId.make(randomUUID()),
    provider,
    providerId: `${provider}-id`,
    identityData: { ...(email === undefined ? {} : { email }), email_verified: verified },
    email: Option.fromNullable(email),
    createdAt: Time.plus(Fixtures.t0, offset)
  })

const later = Time.plus(Fixtures.t0, 60_000)

describe("Unlinking.afterUnlink", () => {
  it("keeps the address another identity carries, and drops the provider", () => {
    const github = identity("github", "ada@example.com", true, 0)
    const gitlab = identity("gitlab", "ada@example.com", true, 1)
    const after = Unlinking.afterUnlink(user, github, [gitlab], false, later)
    expect(after.email).toEqual(user.email)
    expect(after.appMetadata).toMatchObject({ provider: "gitlab", providers: ["gitlab"] })
  })

  it("moves to the best remaining address: verified before unverified before none", () => {
    const github = identity("github", "ada@example.com", true, 0)
    const unverified = identity("gitlab", "old@example.com", false, 1)
    const verified = identity("bitbucket", "new@example.com", true, 2)
    const phone = identity("phone", undefined, false, 3)
    const after = Unlinking.afterUnlink(user, github, [phone, unverified, verified], false, later)
    expect(after.email).toEqual(Option.some("new@example.com"))
    expect(after.emailConfirmedAt).toEqual(user.emailConfirmedAt)
  })

  it("an unverified address that takes over is not confirmed, unless MAILER_AUTOCONFIRM", () => {
    const github = identity("github", "ada@example.com", true, 0)
    const unverified = identity("gitlab", "old@example.com", false, 1)
    const strict = Unlinking.afterUnlink(user, github, [unverified], false, later)
    expect(strict.email).toEqual(Option.some("old@example.com"))
    expect(strict.emailConfirmedAt).toEqual(Option.none())
    expect(strict.userMetadata.email_verified).toBe(false)
    expect(Unlinking.afterUnlink(user, github, [unverified], true, later).emailConfirmedAt).toEqual(
      user.emailConfirmedAt
    )
  })

  it("a phone identity takes the number with it", () => {
    const phoned = Fixtures.user({
      ...user,
      phone: Option.some(Fixtures.phone()),
      phoneConfirmedAt: Option.some(Fixtures.t0)
    })
    const phone = identity("phone", undefined, false, 0)
    const after = Unlinking.afterUnlink(
      phoned,
      phone,
      [identity("github", "ada@example.com", true, 1)],
      false,
      later
    )
    expect(after.phone).toEqual(Option.none())
    expect(after.phoneConfirmedAt).toEqual(Option.none())
    expect(after.email).toEqual(phoned.email)
  })
})
