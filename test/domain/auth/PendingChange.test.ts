import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as PendingChange from "../../../domain/auth/PendingChange.js"
import * as Time from "../../../domain/Time.js"
import type { User } from "../../../domain/User.js"
import * as Fixtures from "../../support/auth/Fixtures.js"

const later = Time.plus(Fixtures.t0, "1 hour")
const next = Fixtures.email("next@example.com")

const changing = (fields: Partial<ConstructorParameters<typeof User>[0]>) =>
  Fixtures.user({ emailChange: Option.some(next), userMetadata: { theme: "dark" }, ...fields })

describe("PendingChange.confirm", () => {
  it("a secure change waits for its second confirmation, then takes the address", () => {
    const user = changing({ emailConfirmedAt: Option.some(Fixtures.t0) })
    const first = PendingChange.confirm(user, "email", 2, later)
    if (first._tag !== "Waiting") return expect.unreachable("one of two confirmations")
    expect(first.user.emailChangeConfirmStatus).toBe(1)
    const second = PendingChange.confirm(first.user, "email", 2, later)
    if (second._tag !== "Changed") return expect.unreachable("both confirmations")
    expect(second.user.email).toEqual(Option.some(next))
    expect(second.previous).toEqual(user.email)
    // Confirmed before: the first confirmation time and the metadata stay as they were.
    expect(second.user.emailConfirmedAt).toEqual(Option.some(Fixtures.t0))
    expect(second.user.userMetadata).toEqual({ theme: "dark" })
  })

  it("a first address is confirmed now and marked in the metadata, as Supabase Auth's Confirm", () => {
    const user = changing({ email: Option.none(), isAnonymous: true })
    const decided = PendingChange.confirm(user, "email", 1, later)
    if (decided._tag !== "Changed") return expect.unreachable("one confirmation is all it needs")
    expect(decided.user.emailConfirmedAt).toEqual(Option.some(later))
    expect(decided.user.userMetadata).toEqual({ theme: "dark", email_verified: true })
    expect(decided.user.isAnonymous).toBe(false)
  })

  it("nothing pending: nothing to decide", () => {
    expect(PendingChange.confirm(Fixtures.user(), "email", 1, later)).toEqual({ _tag: "NothingPending" })
    expect(PendingChange.confirm(Fixtures.user(), "phone", 1, later)).toEqual({ _tag: "NothingPending" })
  })
})
