import { randomUUID } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as Unlinking from "../../../domain/auth/Unlinking.js"
import { IdentityId } from "../../../domain/Ids.js"
import * as Time from "../../../domain/Time.js"
import type { Email } from "../../../domain/User.js"
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

/** No address of a remaining identity is another user's. */
const nothing: ReadonlySet<Email> = new Set()

/** `afterUnlink` at `later`, expected to unlink. */
const unlink = (
  owner: typeof user,
  removed: ReturnType<typeof identity>,
  remaining: ReadonlyArray<ReturnType<typeof identity>>,
  autoconfirm = false,
  taken: ReadonlySet<Email> = nothing
) => {
  const unlinking = Unlinking.afterUnlink(owner, removed, remaining, { autoconfirm, taken, now: later })
  if (unlinking._tag !== "Unlinked") throw new Error(`refused: ${unlinking._tag}`)
  return unlinking
}

describe("Unlinking.afterUnlink", () => {
  it("keeps the address another identity carries, and drops the provider", () => {
    const github = identity("github", "ada@example.com", true, 0)
    const gitlab = identity("gitlab", "ada@example.com", true, 1)
    const { user: after, addressReplaced } = unlink(user, github, [gitlab])
    expect(addressReplaced).toBe(false)
    expect(after.email).toEqual(user.email)
    expect(after.appMetadata).toMatchObject({ provider: "gitlab", providers: ["gitlab"] })
  })

  it("moves to the best remaining address: verified before unverified before none", () => {
    const github = identity("github", "ada@example.com", true, 0)
    const unverified = identity("gitlab", "old@example.com", false, 1)
    const verified = identity("bitbucket", "new@example.com", true, 2)
    const phone = identity("phone", undefined, false, 3)
    const { user: after } = unlink(user, github, [phone, unverified, verified])
    expect(after.email).toEqual(Option.some("new@example.com"))
    expect(after.emailConfirmedAt).toEqual(user.emailConfirmedAt)
  })

  it("an unverified address that takes over is not confirmed, unless MAILER_AUTOCONFIRM", () => {
    const github = identity("github", "ada@example.com", true, 0)
    const unverified = identity("gitlab", "old@example.com", false, 1)
    const { user: strict } = unlink(user, github, [unverified])
    expect(strict.email).toEqual(Option.some("old@example.com"))
    expect(strict.emailConfirmedAt).toEqual(Option.none())
    expect(strict.userMetadata.email_verified).toBe(false)
    expect(unlink(user, github, [unverified], true).user.emailConfirmedAt).toEqual(user.emailConfirmedAt)
  })

  it("a verified address that takes over keeps the user's confirmation as it was, none included", () => {
    const unconfirmed = Fixtures.user({ ...user, emailConfirmedAt: Option.none() })
    const github = identity("github", "ada@example.com", false, 0)
    const verified = identity("gitlab", "new@example.com", true, 1)
    const { user: after } = unlink(unconfirmed, github, [verified])
    expect(after.email).toEqual(Option.some("new@example.com"))
    expect(after.emailConfirmedAt).toEqual(Option.none())
    expect(after.userMetadata.email_verified).toBeUndefined()
  })

  it("a phone identity takes the number with it", () => {
    const phoned = Fixtures.user({
      ...user,
      phone: Option.some(Fixtures.phone()),
      phoneConfirmedAt: Option.some(Fixtures.t0)
    })
    const phone = identity("phone", undefined, false, 0)
    const { user: after, addressReplaced } = unlink(phoned, phone, [
      identity("github", "ada@example.com", true, 1)
    ])
    expect(after.phone).toEqual(Option.none())
    expect(after.phoneConfirmedAt).toEqual(Option.none())
    expect(after.email).toEqual(phoned.email)
    expect(addressReplaced).toBe(false)
  })

  it("an address replaced leaves nothing pending: no link or code sent, no change asked", () => {
    const pending = Fixtures.user({
      ...user,
      confirmationSentAt: Option.some(Fixtures.t0),
      recoverySentAt: Option.some(Fixtures.t0),
      emailChange: Option.some(Fixtures.email("next@example.com")),
      emailChangeSentAt: Option.some(Fixtures.t0),
      emailChangeConfirmStatus: 1,
      phoneChange: Option.some(Fixtures.phone()),
      phoneChangeSentAt: Option.some(Fixtures.t0),
      reauthenticationSentAt: Option.some(Fixtures.t0)
    })
    const github = identity("github", "ada@example.com", true, 0)
    const replaced = unlink(pending, github, [identity("gitlab", "new@example.com", true, 1)])
    expect(replaced.addressReplaced).toBe(true)
    expect(replaced.user).toMatchObject({
      email: Option.some("new@example.com"),
      confirmationSentAt: Option.none(),
      recoverySentAt: Option.none(),
      emailChange: Option.none(),
      emailChangeSentAt: Option.none(),
      emailChangeConfirmStatus: 0,
      phoneChange: Option.none(),
      phoneChangeSentAt: Option.none(),
      reauthenticationSentAt: Option.none()
    })
    // Kept: what was sent to the address still reaches the user.
    const kept = unlink(pending, github, [identity("gitlab", "ada@example.com", true, 1)])
    expect(kept.user.recoverySentAt).toEqual(pending.recoverySentAt)
    expect(kept.user.emailChange).toEqual(pending.emailChange)
  })

  it("passes over an address another user has; refuses when every remaining one is taken", () => {
    const github = identity("github", "ada@example.com", true, 0)
    const best = identity("gitlab", "taken@example.com", true, 1)
    const next = identity("bitbucket", "free@example.com", false, 2)
    expect(Unlinking.replacements(user, github, [best, next])).toEqual([
      "taken@example.com",
      "free@example.com"
    ])
    const taken = new Set([Fixtures.email("taken@example.com")])
    expect(unlink(user, github, [best, next], false, taken).user.email).toEqual(
      Option.some("free@example.com")
    )
    expect(Unlinking.afterUnlink(user, github, [best], { autoconfirm: false, taken, now: later })).toEqual({
      _tag: "EmailConflict"
    })
    // An identity without an address is never taken: the user is left without one.
    const phone = identity("phone", undefined, false, 3)
    expect(unlink(user, github, [best, phone], false, taken).user.email).toEqual(Option.none())
    // A user without an address keeps none while an identity without one remains.
    const phoneOnly = Fixtures.user({ ...user, email: Option.none(), emailConfirmedAt: Option.none() })
    const kept = unlink(phoneOnly, github, [phone, best])
    expect(kept.addressReplaced).toBe(false)
    expect(kept.user.email).toEqual(Option.none())
    // Nothing to look up when the address stays or a number goes.
    expect(Unlinking.replacements(user, github, [identity("gitlab", "ada@example.com", true, 1)])).toEqual([])
    expect(Unlinking.replacements(user, phone, [best])).toEqual([])
  })
})
