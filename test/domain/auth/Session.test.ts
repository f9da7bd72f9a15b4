import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import { authPolicy } from "../../../domain/auth/RefreshPolicy.js"
import * as Session from "../../../domain/auth/Session.js"
import { FamilyId, UserId } from "../../../domain/Ids.js"
import * as RefreshTokenFamily from "../../../domain/RefreshTokenFamily.js"
import * as Time from "../../../domain/Time.js"

const t0 = new Date("2026-01-01T00:00:00.000Z")
const policy = authPolicy({ rotationEnabled: true, reuseInterval: Duration.seconds(10) })
const noInterval = authPolicy({ rotationEnabled: true, reuseInterval: Duration.zero })
const noRotation = authPolicy({ rotationEnabled: false, reuseInterval: Duration.seconds(10) })

const session = Session.start(
  {
    id: Session.SessionId.make("00000000-0000-4000-8000-000000000001"),
    userId: UserId.make("00000000-0000-4000-8000-000000000002"),
    aal: "aal1",
    amr: [],
    factorId: Option.none(),
    userAgent: Option.none(),
    ip: Option.none(),
    tag: Option.none()
  },
  t0
)

/** Presents a token and carries the outcome out, as RefreshSession does. */
const present = (p: Session.RefreshPolicy, s: Session.Session, generation: number, now: Date) => {
  const outcome = Session.present(p, s, generation, now)
  return { outcome, session: Session.after(s, outcome, now) }
}

describe("Session refresh rule", () => {
  it("the first token is live until it rotates", () => {
    expect([session.generation, session.refreshedAt, session.revokedAt]).toEqual([
      0,
      Option.none(),
      Option.none()
    ])
    expect(Session.present(policy, session, 0, t0)).toEqual(Session.Presented.Rotate({ generation: 1 }))
  })

  it("a rotation moves the live generation and stamps refreshed_at, which starts the reuse interval", () => {
    const at = Time.plus(t0, "1 hour")
    const rotated = present(policy, session, 0, at).session
    expect([rotated.generation, rotated.refreshedAt, rotated.updatedAt]).toEqual([1, Option.some(at), at])
    expect(Session.present(policy, rotated, 0, Time.plus(at, "9 seconds"))._tag).toBe("Reissue")
    expect(Session.present(policy, rotated, 0, Time.plus(at, "10 seconds"))._tag).toBe("ReuseDetected")
    // Two generations back is never the parent.
    const twice = present(policy, rotated, 1, Time.plus(at, "1 second")).session
    expect(Session.present(policy, twice, 0, Time.plus(at, "2 seconds"))._tag).toBe("ReuseDetected")
  })

  it("without a reuse interval the parent at the rotation instant is a reuse", () => {
    const rotated = present(noInterval, session, 0, t0).session
    expect(Session.present(noInterval, rotated, 0, t0)._tag).toBe("ReuseDetected")
    expect(Session.keepsChild(noInterval)).toBe(false)
    expect(Session.keepsChild(policy)).toBe(true)
  })

  it.each([
    ["the parent at the rotation instant", 1, 0],
    ["the parent inside the 10 s", 1, 5_000],
    ["the parent after the 10 s", 1, 60_000],
    ["two generations back", 0, 1_000]
  ])("with rotation off, %s is already used and the session lives on", (_, generation, afterMs) => {
    const rotation = Time.plus(t0, "100 seconds")
    const twice = present(noRotation, present(noRotation, session, 0, t0).session, 1, rotation).session
    const now = new Date(rotation.getTime() + afterMs)
    const { outcome, session: after } = present(noRotation, twice, generation, now)
    expect(outcome).toEqual(Session.Presented.AlreadyUsed())
    expect(after).toBe(twice)
    expect(Session.present(noRotation, after, 2, now)._tag).toBe("Rotate")
  })

  it("a detected reuse ends the session, and an ended session refuses every token", () => {
    const rotated = present(policy, session, 0, t0).session
    const later = Time.plus(t0, "1 minute")
    const { outcome, session: ended } = present(policy, rotated, 0, later)
    expect(outcome._tag).toBe("ReuseDetected")
    expect([ended.revokedAt, ended.updatedAt]).toEqual([Option.some(later), later])
    expect(Session.present(policy, ended, 1, later)).toEqual(Session.Presented.Ended())
    // Even the parent inside the interval: an ended session hands nothing out.
    const loggedOut = Session.revoke(present(policy, ended, 1, later).session, later)
    expect(Session.present(policy, loggedOut, 0, later)._tag).toBe("Ended")
    expect(Session.revoke(ended, Time.plus(later, "1 hour"))).toBe(ended)
  })
})

describe("Session limits (SESSIONS_TIMEBOX, _INACTIVITY_TIMEOUT, _ALLOW_LOW_AAL)", () => {
  const limits = (more: Partial<Session.Limits>): Session.Limits => ({ ...Session.unlimited, ...more })
  const at = (duration: Duration.DurationInput) => Time.plus(t0, duration)

  it("without limits a session is valid however old, and access tokens live JWT_EXP", () => {
    expect(Session.decidedByCutoffs(Session.unlimited)).toBe(true)
    expect(Session.validity(Session.unlimited, session, "aal2", at("3650 days"))).toBe("valid")
    expect(Session.accessLifetime(Session.unlimited, session, "aal2", t0, Duration.hours(1))).toEqual(
      Duration.hours(1)
    )
  })

  it("a timebox counts from the sign-in, refreshes or not; its very end is still inside", () => {
    const day = limits({ timebox: Option.some(Duration.days(1)) })
    const refreshed = Session.rotate(session, at("23 hours"))
    expect(Session.validity(day, refreshed, "aal1", at("1 day"))).toBe("valid")
    expect(Session.validity(day, refreshed, "aal1", at(Duration.sum("1 day", "1 millis")))).toBe(
      "past_timebox"
    )
  })

  it("an inactivity timeout counts from the last refresh, or the sign-in before the first", () => {
    const hour = limits({ inactivityTimeout: Option.some(Duration.hours(1)) })
    expect(Session.validity(hour, session, "aal1", at("1 hour"))).toBe("valid")
    expect(Session.validity(hour, session, "aal1", at("61 minutes"))).toBe("inactive")
    const refreshed = Session.rotate(session, at("50 minutes"))
    expect(Session.validity(hour, refreshed, "aal1", at("110 minutes"))).toBe("valid")
    expect(Session.validity(hour, refreshed, "aal1", at("111 minutes"))).toBe("inactive")
  })

  it("the timebox is named first when both are past, as Supabase Auth checks them", () => {
    const both = limits({
      timebox: Option.some(Duration.hours(1)),
      inactivityTimeout: Option.some(Duration.hours(1))
    })
    expect(Session.validity(both, session, "aal1", at("2 hours"))).toBe("past_timebox")
  })

  it("a session below the user's highest level lasts the low-AAL allowance; at that level, no limit", () => {
    const tenMinutes = limits({ allowLowAal: Option.some(Duration.minutes(10)) })
    expect(Session.validity(tenMinutes, session, "aal2", at("10 minutes"))).toBe("valid")
    expect(Session.validity(tenMinutes, session, "aal2", at("11 minutes"))).toBe("low_aal")
    // A user without a verified factor cannot do better than aal1.
    expect(Session.validity(tenMinutes, session, "aal1", at("1 day"))).toBe("valid")
    const raised = new Session.Session({ ...session, aal: "aal2" })
    expect(Session.validity(tenMinutes, raised, "aal2", at("1 day"))).toBe("valid")
  })

  it("one session per user: a session is superseded by another live, valid one used after it", () => {
    const single = limits({ singlePerUser: true, timebox: Option.some(Duration.days(1)) })
    const newer = Session.start(
      { ...session, id: Session.SessionId.make("00000000-0000-4000-8000-000000000003") },
      at("1 hour")
    )
    expect(Session.isSuperseded(single, session, [session, newer], "aal1", at("2 hours"))).toBe(true)
    expect(Session.isSuperseded(single, newer, [session, newer], "aal1", at("2 hours"))).toBe(false)
    // The older one refreshed since: now it is the newer.
    const refreshed = Session.rotate(session, at("90 minutes"))
    expect(Session.isSuperseded(single, refreshed, [refreshed, newer], "aal1", at("2 hours"))).toBe(false)
    // An ended session, or one past its own limits, supersedes nothing.
    const loggedOut = Session.revoke(newer, at("100 minutes"))
    expect(Session.isSuperseded(single, session, [loggedOut], "aal1", at("2 hours"))).toBe(false)
    expect(Session.isSuperseded(single, session, [newer], "aal1", at("26 hours"))).toBe(false)
    // Without the setting, never.
    expect(Session.isSuperseded(Session.unlimited, session, [newer], "aal1", at("2 hours"))).toBe(false)
  })

  it("the cutoffs storage rotates under say what validity says", () => {
    // Limits up to 20 hours, presented 10 to 20 hours after the sign-in: past and not.
    const minutes = fc.integer({ min: 0, max: 1200 })
    const aal = fc.constantFrom<Session.Aal>("aal1", "aal2")
    fc.assert(
      fc.property(
        fc.option(minutes, { nil: undefined }),
        fc.option(minutes, { nil: undefined }),
        fc.option(minutes, { nil: undefined }),
        fc.option(minutes, { nil: undefined }),
        minutes,
        aal,
        aal,
        (timebox, inactivity, allowLowAal, refreshedAfter, presentedAfter, level, highest) => {
          const limits: Session.Limits = {
            ...Session.unlimited,
            timebox: Option.map(Option.fromNullable(timebox), Duration.minutes),
            inactivityTimeout: Option.map(Option.fromNullable(inactivity), Duration.minutes),
            allowLowAal: Option.map(Option.fromNullable(allowLowAal), Duration.minutes)
          }
          const signedIn = new Session.Session({ ...session, aal: level })
          const used =
            refreshedAfter === undefined
              ? signedIn
              : Session.rotate(signedIn, at(Duration.minutes(refreshedAfter)))
          const now = Time.plus(at("10 hours"), Duration.minutes(presentedAfter / 2))
          const valid = Session.validity(limits, used, highest, now) === "valid"
          expect(Session.meets(used, Session.cutoffs(limits, now), highest)).toBe(valid)
          expect(Session.decidedByCutoffs(limits)).toBe(true)
        }
      )
    )
    expect(Session.meets(session, Session.noCutoffs, "aal2")).toBe(true)
    expect(Session.decidedByCutoffs(limits({ singlePerUser: true }))).toBe(false)
  })

  it("a low session's access tokens end with its allowance, never later than JWT_EXP", () => {
    const tenMinutes = limits({ allowLowAal: Option.some(Duration.minutes(10)) })
    const hour = Duration.hours(1)
    expect(Session.accessLifetime(tenMinutes, session, "aal2", at("4 minutes"), hour)).toEqual(
      Duration.minutes(6)
    )
    expect(Session.accessLifetime(tenMinutes, session, "aal2", at("1 hour"), hour)).toEqual(Duration.zero)
    expect(Session.accessLifetime(tenMinutes, session, "aal1", at("4 minutes"), hour)).toEqual(hour)
    const short = Duration.minutes(2)
    expect(Session.accessLifetime(tenMinutes, session, "aal2", t0, short)).toEqual(short)
  })
})

// The rule the sessions had when they were ruled as refresh-token families: for any sequence of
// presentations and logouts, the session's own rule decides as the family rule did with
// Supabase Auth's parameters, and leaves the same state behind.

type Step =
  | { readonly _tag: "Advance"; readonly ms: number }
  | { readonly _tag: "Present"; readonly pick: number }
  | { readonly _tag: "Revoke" }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.integer({ min: 0, max: 20_000 }).map((ms): Step => ({ _tag: "Advance", ms })),
  fc.nat().map((pick): Step => ({ _tag: "Present", pick })),
  // The newest token: without it sessions rarely grow.
  fc.constant<Step>({ _tag: "Present", pick: -1 }),
  fc.constant<Step>({ _tag: "Revoke" })
)

const asFamily = (s: Session.Session): RefreshTokenFamily.Family =>
  new RefreshTokenFamily.Family({
    id: FamilyId.make(s.id),
    userId: s.userId,
    clientId: Option.none(),
    grantId: Option.none(),
    scope: Option.none(),
    resource: Option.none(),
    generation: s.generation,
    rotatedAt: Option.getOrElse(s.refreshedAt, () => s.createdAt),
    expiresAt: Option.none(),
    revokedAt: s.revokedAt,
    createdAt: s.createdAt
  })

const familyTag = (outcome: Session.Presented): RefreshTokenFamily.Decision["_tag"] =>
  outcome._tag === "Ended" ? "Revoked" : outcome._tag

describe("Session refresh rule against the refresh-token family rule", () => {
  it.each([
    ["rotation, 10 s interval", policy],
    ["rotation, no interval", noInterval],
    ["no rotation", noRotation]
  ])("%s: the same decision and state after any sequence", (_, p) => {
    const familyPolicy: RefreshTokenFamily.Policy = {
      ...p,
      slidingLifetime: Option.none(),
      bindsClient: false
    }
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let now = t0
        let current = session
        let family = asFamily(session)
        for (const s of steps) {
          if (s._tag === "Advance") now = new Date(now.getTime() + s.ms)
          else if (s._tag === "Revoke") {
            current = Session.revoke(current, now)
            family = RefreshTokenFamily.revoke(family, now)
          } else {
            const generation = s.pick < 0 ? current.generation : s.pick % (current.generation + 1)
            const decision = RefreshTokenFamily.decide(
              familyPolicy,
              family,
              { generation, clientId: Option.none() },
              now
            )
            const outcome = Session.present(p, current, generation, now)
            expect(familyTag(outcome)).toBe(decision._tag)
            current = Session.after(current, outcome, now)
            family = RefreshTokenFamily.apply(family, decision, now)
          }
          expect(asFamily(current)).toEqual(family)
        }
      })
    )
  })
})
