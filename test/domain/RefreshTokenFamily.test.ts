import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import { ClientId, FamilyId, UserId } from "../../domain/Ids.js"
import { oauthPolicy } from "../../domain/oauth/RefreshPolicy.js"
import * as RefreshTokenFamily from "../../domain/RefreshTokenFamily.js"

const second = 1000
const day = 24 * 60 * 60 * second
const t0 = Date.UTC(2025, 0, 1, 12)
const at = (ms: number) => new Date(t0 + ms)

const rightClient = Option.some(ClientId.make("client-1"))
const otherClient = Option.some(ClientId.make("client-2"))

/**
 * The family rule under Supabase Auth's parameters: reuse detection with rotation on, the
 * reuse interval only then, no lifetime, no client. (The auth service's sessions have their
 * own rule, `Session.present`; test/domain/auth/Session.test.ts holds it to this one.)
 */
const authPolicy = (options: {
  readonly rotationEnabled: boolean
  readonly reuseInterval: Duration.Duration
}): RefreshTokenFamily.Policy => ({
  reuseDetection: options.rotationEnabled,
  reuseInterval: options.rotationEnabled ? options.reuseInterval : Duration.zero,
  slidingLifetime: Option.none(),
  bindsClient: false
})

const rotating = authPolicy({ rotationEnabled: true, reuseInterval: Duration.seconds(10) })
const nonRotating = authPolicy({
  rotationEnabled: false,
  reuseInterval: Duration.seconds(10)
})

const start = (policy: RefreshTokenFamily.Policy, clientId: Option.Option<ClientId>, now: Date) =>
  RefreshTokenFamily.start(
    {
      id: FamilyId.make("00000000-0000-4000-8000-000000000003"),
      userId: UserId.make("00000000-0000-4000-8000-000000000002"),
      clientId,
      grantId: Option.none(),
      scope: Option.none(),
      resource: Option.none()
    },
    policy,
    now
  )

/** Presents a token and carries out the decision, as the token store does. */
const present = (
  policy: RefreshTokenFamily.Policy,
  family: RefreshTokenFamily.Family,
  generation: number,
  clientId: Option.Option<ClientId>,
  now: Date
) => {
  const decision = RefreshTokenFamily.decide(policy, family, { generation, clientId }, now)
  return { decision, family: RefreshTokenFamily.apply(family, decision, now) }
}

/** A family rotated at each of the given instants (ms after t0), from generation 0. */
const rotatedAt = (
  policy: RefreshTokenFamily.Policy,
  clientId: Option.Option<ClientId>,
  times: Array<number>
) =>
  times.reduce(
    (family, ms) => {
      const { decision, family: next } = present(policy, family, family.generation, clientId, at(ms))
      expect(decision._tag).toBe("Rotate")
      return next
    },
    start(policy, clientId, at(0))
  )

describe("RefreshTokenFamily.start", () => {
  it("gives generation 0, 30 days of life with the oauth policy, client-bound", () => {
    const family = start(oauthPolicy, rightClient, at(0))
    expect(family.generation).toBe(0)
    expect(family.rotatedAt).toEqual(at(0))
    expect(family.createdAt).toEqual(at(0))
    expect(family.expiresAt).toEqual(Option.some(at(30 * day)))
    expect(family.revokedAt).toEqual(Option.none())
    expect(family.clientId).toEqual(rightClient)
  })

  it.each([
    ["rotating", rotating],
    ["non-rotating", nonRotating]
  ])("gives generation 0 and no lifetime with the %s auth policy", (_, policy) => {
    const family = start(policy, Option.none(), at(0))
    expect(family.generation).toBe(0)
    expect(family.expiresAt).toEqual(Option.none())
    expect(family.revokedAt).toEqual(Option.none())
  })
})

describe("RefreshTokenFamily with the oauth policy", () => {
  it("the live token rotates to generation + 1 and 30 more days", () => {
    const family = rotatedAt(oauthPolicy, rightClient, [day])
    const now = at(5 * day)
    const { decision, family: after } = present(oauthPolicy, family, 1, rightClient, now)
    expect(decision).toEqual(
      RefreshTokenFamily.Decision.Rotate({ generation: 2, expiresAt: Option.some(at(35 * day)) })
    )
    expect(after.generation).toBe(2)
    expect(after.rotatedAt).toEqual(now)
    expect(after.expiresAt).toEqual(Option.some(at(35 * day)))
    expect(after.revokedAt).toEqual(Option.none())
  })

  it.each([
    ["the previous generation at once", 1, 0, 0],
    ["the previous generation a second later", 1, 0, second],
    ["the previous generation a day later", 1, 0, day],
    ["two generations back", 2, 0, second],
    ["the first after many rotations", 5, 0, second],
    ["the one before the live one after many rotations", 5, 4, 0]
  ])("%s is reuse and revokes the family", (_, rotations, presented, afterLastRotation) => {
    const times = Array.from({ length: rotations }, (_, i) => (i + 1) * second)
    const family = rotatedAt(oauthPolicy, rightClient, times)
    const now = at(rotations * second + afterLastRotation)
    const { decision, family: after } = present(oauthPolicy, family, presented, rightClient, now)
    expect(decision).toEqual(RefreshTokenFamily.Decision.ReuseDetected())
    expect(after.revokedAt).toEqual(Option.some(now))
    // After that, even the live token is refused.
    expect(
      RefreshTokenFamily.decide(oauthPolicy, after, { generation: rotations, clientId: rightClient }, now)
    ).toEqual(RefreshTokenFamily.Decision.Revoked())
  })

  it.each([
    ["the live token", 1],
    ["an old token", 0],
    ["a generation never minted", 7]
  ])("a revoked family answers Revoked to %s", (_, generation) => {
    const family = RefreshTokenFamily.revoke(rotatedAt(oauthPolicy, rightClient, [second]), at(2 * second))
    const { decision, family: after } = present(oauthPolicy, family, generation, rightClient, at(3 * second))
    expect(decision).toEqual(RefreshTokenFamily.Decision.Revoked())
    expect(after).toEqual(family)
  })

  it.each([
    ["another client, live token", otherClient, 1],
    ["no client, live token", Option.none(), 1],
    ["another client, old token", otherClient, 0]
  ])("%s → WrongClient, family untouched", (_, clientId, generation) => {
    const family = rotatedAt(oauthPolicy, rightClient, [second])
    const { decision, family: after } = present(oauthPolicy, family, generation, clientId, at(2 * second))
    expect(decision).toEqual(RefreshTokenFamily.Decision.WrongClient())
    expect(after).toEqual(family)
  })

  it.each([
    ["1 ms before expiry", 30 * day - 1, "Rotate"],
    ["at expiry", 30 * day, "Expired"],
    ["after expiry", 31 * day, "Expired"]
  ])("the live token %s → %s", (_, ms, expected) => {
    const family = start(oauthPolicy, rightClient, at(0))
    const { decision, family: after } = present(oauthPolicy, family, 0, rightClient, at(ms))
    expect(decision._tag).toBe(expected)
    if (expected === "Expired") expect(after).toEqual(family)
  })

  it("the lifetime slides: expiry counts from the last rotation", () => {
    const family = rotatedAt(oauthPolicy, rightClient, [29 * day, 58 * day])
    expect(family.expiresAt).toEqual(Option.some(at(88 * day)))
    expect(
      RefreshTokenFamily.decide(
        oauthPolicy,
        family,
        { generation: 2, clientId: rightClient },
        at(88 * day - 1)
      )._tag
    ).toBe("Rotate")
    expect(
      RefreshTokenFamily.decide(oauthPolicy, family, { generation: 2, clientId: rightClient }, at(88 * day))
        ._tag
    ).toBe("Expired")
  })
})

describe("RefreshTokenFamily with auth rotation and a 10 s reuse interval", () => {
  const rotation = 100 * second
  const family = rotatedAt(rotating, Option.none(), [rotation])

  it.each([
    ["at the rotation instant", 0, "Reissue"],
    ["5 s after the rotation", 5 * second, "Reissue"],
    ["1 ms before 10 s", 10 * second - 1, "Reissue"],
    ["exactly 10 s after", 10 * second, "ReuseDetected"],
    ["a minute after", 60 * second, "ReuseDetected"]
  ])("the previous generation %s → %s", (_, afterRotation, expected) => {
    const now = at(rotation + afterRotation)
    const { decision, family: after } = present(rotating, family, 0, Option.none(), now)
    expect(decision._tag).toBe(expected)
    if (expected === "Reissue") {
      expect(decision).toEqual(RefreshTokenFamily.Decision.Reissue({ generation: 1 }))
      expect(after).toEqual(family)
    } else {
      expect(after.revokedAt).toEqual(Option.some(now))
    }
  })

  it("two generations back is reuse even inside the interval", () => {
    const twice = rotatedAt(rotating, Option.none(), [second, 2 * second])
    const now = at(2 * second + 1)
    const { decision, family: after } = present(rotating, twice, 0, Option.none(), now)
    expect(decision).toEqual(RefreshTokenFamily.Decision.ReuseDetected())
    expect(after.revokedAt).toEqual(Option.some(now))
  })

  it.each([
    ["no client", Option.none()],
    ["some client", rightClient],
    ["another client", otherClient]
  ])("is not client-bound: the live token presented with %s rotates", (_, clientId) => {
    const { decision } = present(rotating, family, 1, clientId, at(rotation + 1))
    expect(decision).toEqual(RefreshTokenFamily.Decision.Rotate({ generation: 2, expiresAt: Option.none() }))
  })

  it("has no lifetime: the live token still rotates ten years later", () => {
    const { decision, family: after } = present(rotating, family, 1, Option.none(), at(3650 * day))
    expect(decision._tag).toBe("Rotate")
    expect(after.expiresAt).toEqual(Option.none())
  })

  it("a revoked family answers Revoked, even inside the interval", () => {
    const revoked = RefreshTokenFamily.revoke(family, at(rotation + 1))
    expect(
      RefreshTokenFamily.decide(
        rotating,
        revoked,
        { generation: 0, clientId: Option.none() },
        at(rotation + 2)
      )
    ).toEqual(RefreshTokenFamily.Decision.Revoked())
  })
})

describe("RefreshTokenFamily with auth rotation and no reuse interval", () => {
  const noInterval = authPolicy({ rotationEnabled: true, reuseInterval: Duration.zero })
  it("the previous generation at the rotation instant is reuse", () => {
    const family = rotatedAt(noInterval, Option.none(), [second])
    expect(
      RefreshTokenFamily.decide(noInterval, family, { generation: 0, clientId: Option.none() }, at(second))
    ).toEqual(RefreshTokenFamily.Decision.ReuseDetected())
  })
})

describe("RefreshTokenFamily with auth rotation disabled", () => {
  const rotation = 100 * second
  const family = rotatedAt(nonRotating, Option.none(), [second, rotation])

  it.each([
    ["the previous generation at the rotation instant", 1, 0],
    ["the previous generation inside the 10 s", 1, 5 * second],
    ["the previous generation after the 10 s", 1, 60 * second],
    ["two generations back", 0, second]
  ])("%s → AlreadyUsed, and the family is not revoked", (_, generation, afterRotation) => {
    const { decision, family: after } = present(
      nonRotating,
      family,
      generation,
      Option.none(),
      at(rotation + afterRotation)
    )
    expect(decision).toEqual(RefreshTokenFamily.Decision.AlreadyUsed())
    expect(after).toEqual(family)
    expect(after.revokedAt).toEqual(Option.none())
    // The live token still works afterwards.
    expect(
      RefreshTokenFamily.decide(
        nonRotating,
        after,
        { generation: 2, clientId: Option.none() },
        at(rotation + afterRotation)
      )._tag
    ).toBe("Rotate")
  })

  it("the live token rotates", () => {
    expect(
      RefreshTokenFamily.decide(
        nonRotating,
        family,
        { generation: 2, clientId: Option.none() },
        at(rotation + 1)
      )
    ).toEqual(RefreshTokenFamily.Decision.Rotate({ generation: 3, expiresAt: Option.none() }))
  })
})

// ---------------------------------------------------------------------------------------------
// Simulation: a family lives through random clock advances and random presentations of any
// token ever minted, by the right or a wrong client.

type Step =
  | { readonly _tag: "Advance"; readonly ms: number }
  | { readonly _tag: "Present"; readonly pick: number; readonly rightClient: boolean }

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  // Durations over the full range, and short ones so reuse windows are actually hit.
  fc.integer({ min: 0, max: 40 * day }).map((ms): Step => ({ _tag: "Advance", ms })),
  fc.integer({ min: 0, max: 20 * second }).map((ms): Step => ({ _tag: "Advance", ms })),
  fc
    .tuple(fc.nat(), fc.boolean())
    .map(([pick, right]): Step => ({ _tag: "Present", pick, rightClient: right })),
  // Presenting the newest token is the common case; without it families rarely grow.
  fc.constant<Step>({ _tag: "Present", pick: -1, rightClient: true })
)

interface Moment {
  readonly family: RefreshTokenFamily.Family
  /** Every generation minted so far. */
  readonly minted: ReadonlyArray<number>
  readonly now: Date
  /** The instant of the last Rotate, or of the start: the model's own record. */
  readonly lastRotation: number
}

interface Presented {
  readonly before: Moment
  readonly after: Moment
  readonly generation: number
  readonly rightClient: boolean
  readonly decision: RefreshTokenFamily.Decision
}

/**
 * Runs the steps. `atEveryMoment` sees the state at the start and after every step (clock
 * advances included); `onPresent` sees each presentation with the state before and after it.
 */
const simulate = (
  policy: RefreshTokenFamily.Policy,
  clientId: Option.Option<ClientId>,
  steps: ReadonlyArray<Step>,
  callbacks: {
    readonly atEveryMoment?: (moment: Moment) => void
    readonly onPresent?: (presented: Presented) => void
  }
) => {
  let moment: Moment = { family: start(policy, clientId, at(0)), minted: [0], now: at(0), lastRotation: t0 }
  callbacks.atEveryMoment?.(moment)
  for (const step of steps) {
    if (step._tag === "Advance") {
      moment = { ...moment, now: new Date(moment.now.getTime() + step.ms) }
    } else {
      const { minted, now } = moment
      // `minted` always holds at least generation 0, so the fallbacks never apply.
      const generation = step.pick < 0 ? (minted.at(-1) ?? 0) : (minted[step.pick % minted.length] ?? 0)
      const presenter = step.rightClient ? clientId : otherClient
      const decision = RefreshTokenFamily.decide(
        policy,
        moment.family,
        { generation, clientId: presenter },
        now
      )
      const rotated = decision._tag === "Rotate"
      const after: Moment = {
        family: RefreshTokenFamily.apply(moment.family, decision, now),
        minted: rotated ? [...minted, decision.generation] : minted,
        now,
        lastRotation: rotated ? now.getTime() : moment.lastRotation
      }
      callbacks.onPresent?.({ before: moment, after, generation, rightClient: step.rightClient, decision })
      moment = after
    }
    callbacks.atEveryMoment?.(moment)
  }
}

const policies: ReadonlyArray<readonly [string, RefreshTokenFamily.Policy, Option.Option<ClientId>]> = [
  ["oauth", oauthPolicy, rightClient],
  ["auth, rotation, 10 s interval", rotating, Option.none()],
  ["auth, no rotation, 10 s interval", nonRotating, Option.none()],
  [
    "auth, rotation, no interval",
    authPolicy({ rotationEnabled: true, reuseInterval: Duration.zero }),
    Option.none()
  ]
]

const steps = fc.array(stepArbitrary, { maxLength: 60 })

const presentLive: Step = { _tag: "Present", pick: -1, rightClient: true }

/** The reuse interval of a policy, in ms (zero when it has none). */
const intervalOf = (policy: RefreshTokenFamily.Policy) => Duration.toMillis(policy.reuseInterval)

/** The policy's sliding lifetime in ms; infinite when it has none. */
const lifetimeOf = (policy: RefreshTokenFamily.Policy) =>
  Option.match(policy.slidingLifetime, {
    onNone: () => Number.POSITIVE_INFINITY,
    onSome: (lifetime) => Duration.toMillis(lifetime)
  })

/** The longest a family may sit unused and stay alive, capped at the range `stepArbitrary` uses. */
const longestIdle = (policy: RefreshTokenFamily.Policy) => Math.min(lifetimeOf(policy) - 1, 40 * day)

/**
 * A family grown by construction: each wait is shorter than the lifetime and is followed by the
 * live token, presented by the right client, so every one of these presentations rotates. The
 * coverage the properties below rely on comes from here, not from how often chance grows a
 * family.
 */
const growth = (policy: RefreshTokenFamily.Policy) =>
  fc
    .array(
      fc.oneof(fc.integer({ min: 0, max: longestIdle(policy) }), fc.integer({ min: 0, max: 20 * second })),
      { minLength: 1, maxLength: 20 }
    )
    .map((waits) => waits.flatMap((ms): ReadonlyArray<Step> => [{ _tag: "Advance", ms }, presentLive]))

const presentations = (script: ReadonlyArray<Step>) => script.filter((step) => step._tag === "Present").length

/**
 * A grown family, then a retired token presented outside the reuse window and before the family
 * expires, by a client the family accepts: a reuse in every script, not in some. Anything may
 * follow.
 */
const reuseScenario = (policy: RefreshTokenFamily.Policy) =>
  fc
    .record({
      grown: growth(policy),
      wait: fc.integer({ min: intervalOf(policy), max: longestIdle(policy) }),
      retired: fc.nat(),
      anyClient: fc.boolean(),
      rest: steps
    })
    .map(({ grown, wait, retired, anyClient, rest }): ReadonlyArray<Step> => {
      // After n rotations generations 0…n exist and 0…n-1 are retired; `minted` lists them in
      // order, so index `retired % n` is a retired generation.
      const rotations = presentations(grown)
      return [
        ...grown,
        { _tag: "Advance", ms: wait },
        {
          _tag: "Present",
          pick: retired % rotations,
          // A family not bound to a client accepts any presenter.
          rightClient: policy.bindsClient || anyClient
        },
        ...rest
      ]
    })

/**
 * The model of reuse detection, checked at each presentation. Until the family is killed, a
 * retired token presented while the family is unexpired, outside the reuse window, by a client
 * the family accepts, must be detected and revoke the family; from then on every presentation
 * is Revoked and changes nothing.
 */
const reuseModel = (policy: RefreshTokenFamily.Policy) => {
  const interval = intervalOf(policy)
  const lifetime = lifetimeOf(policy)
  let killed = false
  return {
    killed: () => killed,
    onPresent: ({ before, after, generation, rightClient, decision }: Presented) => {
      if (killed) {
        expect(decision).toEqual(RefreshTokenFamily.Decision.Revoked())
        expect(after.family).toEqual(before.family)
        return
      }
      const now = before.now.getTime()
      const expired = now >= before.lastRotation + lifetime
      const live = before.minted.at(-1)
      // The previous token, less than `interval` after the rotation that retired it.
      const insideWindow =
        live !== undefined && generation === live - 1 && now - before.lastRotation < interval
      // Without client binding (auth), any presenter counts as the right one.
      const accepted = rightClient || !policy.bindsClient
      if (accepted && !expired && generation !== live && !insideWindow) {
        expect(decision).toEqual(RefreshTokenFamily.Decision.ReuseDetected())
        expect(after.family.revokedAt).toEqual(Option.some(before.now))
        killed = true
      }
    }
  }
}

const detecting = policies.filter(([, policy]) => policy.reuseDetection)

describe("RefreshTokenFamily: simulated families", () => {
  it.each(policies)("at most one minted token would rotate, at any moment (%s)", (_, policy, clientId) => {
    fc.assert(
      fc.property(growth(policy), steps, (grown, rest) => {
        let rotations = 0
        simulate(policy, clientId, [...grown, ...rest], {
          atEveryMoment: ({ family, minted, now }) => {
            const rotatable = minted.filter(
              (generation) =>
                RefreshTokenFamily.decide(policy, family, { generation, clientId }, now)._tag === "Rotate"
            )
            expect(rotatable.length).toBeLessThanOrEqual(1)
          },
          onPresent: ({ decision }) => {
            if (decision._tag === "Rotate") rotations++
          }
        })
        // Every growth step rotated: the invariant held on a family of several generations.
        expect(rotations).toBeGreaterThanOrEqual(presentations(grown))
      }),
      { numRuns: 500 }
    )
  })

  it.each(detecting)("reuse kills the family for good (%s)", (_, policy, clientId) => {
    fc.assert(
      fc.property(reuseScenario(policy), (script) => {
        const model = reuseModel(policy)
        simulate(policy, clientId, script, { onPresent: model.onPresent })
        expect(model.killed()).toBe(true)
      }),
      { numRuns: 500 }
    )
  })

  it.each(detecting)(
    "reuse is detected whenever the model says so, in any history (%s)",
    (_, policy, clientId) => {
      fc.assert(
        fc.property(steps, (script) => {
          simulate(policy, clientId, script, { onPresent: reuseModel(policy).onPresent })
        }),
        { numRuns: 500 }
      )
    }
  )

  it("oauth: expiresAt is always the last rotation (or the start) + 30 days", () => {
    fc.assert(
      fc.property(growth(oauthPolicy), steps, (grown, rest) => {
        simulate(oauthPolicy, rightClient, [...grown, ...rest], {
          atEveryMoment: ({ family, lastRotation }) => {
            const bound = lastRotation + 30 * day
            expect(Option.getOrThrow(family.expiresAt).getTime()).toBeLessThanOrEqual(bound)
            expect(family.expiresAt).toEqual(Option.some(new Date(bound)))
          }
        })
      }),
      { numRuns: 500 }
    )
  })
})
