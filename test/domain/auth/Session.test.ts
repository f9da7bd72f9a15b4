import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import { authPolicy } from "../../../domain/auth/RefreshPolicy.js"
import * as Session from "../../../domain/auth/Session.js"
import { UserId } from "../../../domain/Ids.js"
import * as RefreshTokenFamily from "../../../domain/RefreshTokenFamily.js"
import * as Time from "../../../domain/Time.js"

const t0 = new Date("2026-01-01T00:00:00.000Z")
const policy = authPolicy({ rotationEnabled: true, reuseInterval: Duration.seconds(10) })

const session = Session.start(
  {
    id: Session.SessionId.make("00000000-0000-4000-8000-000000000001"),
    userId: UserId.make("00000000-0000-4000-8000-000000000002"),
    aal: "aal1",
    amr: [],
    factorId: Option.none(),
    notAfter: Option.some(Time.plus(t0, "1 day")),
    userAgent: Option.none(),
    ip: Option.none(),
    tag: Option.none()
  },
  t0
)

const present = (s: Session.Session, generation: number, now: Date) =>
  RefreshTokenFamily.decide(policy, Session.family(s), { generation, clientId: Option.none() }, now)

describe("Session", () => {
  it("is a family whose live token is its first until it rotates", () => {
    const family = Session.family(session)
    expect([family.generation, family.rotatedAt, family.revokedAt]).toEqual([0, t0, Option.none()])
  })

  it("a rotation moves the live generation and stamps refreshed_at, which starts the reuse interval", () => {
    const at = Time.plus(t0, "1 hour")
    const decision = present(session, 0, at)
    const rotated = Session.apply(session, decision, at)
    expect([rotated.generation, rotated.refreshedAt]).toEqual([1, Option.some(at)])
    expect(present(rotated, 0, Time.plus(at, "9 seconds"))._tag).toBe("Reissue")
    expect(present(rotated, 0, Time.plus(at, "10 seconds"))._tag).toBe("ReuseDetected")
  })

  it("a detected reuse revokes the session, and a revoked session is not active", () => {
    const rotated = Session.apply(session, present(session, 0, t0), t0)
    const later = Time.plus(t0, "1 minute")
    const revoked = Session.apply(rotated, present(rotated, 0, later), later)
    expect(revoked.revokedAt).toEqual(Option.some(later))
    expect(Session.isActive(revoked, later)).toBe(false)
    expect(present(revoked, 1, later)._tag).toBe("Revoked")
    expect(Session.revoke(revoked, Time.plus(later, "1 hour"))).toBe(revoked)
  })

  it("is active until not_after", () => {
    expect(Session.isActive(session, Time.plus(t0, "23 hours"))).toBe(true)
    expect(Session.isActive(session, Time.plus(t0, "1 day"))).toBe(false)
  })
})
