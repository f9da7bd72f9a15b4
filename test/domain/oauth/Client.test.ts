import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import { ClientId } from "../../../domain/Ids.js"
import * as Client from "../../../domain/oauth/Client.js"

const day = 24 * 60 * 60 * 1000
const epoch = Date.UTC(2025, 0, 1)
const onDay = (n: number, extraMs = 0) => new Date(epoch + n * day + extraMs)

const client = (fields: {
  readonly origin?: Client.ClientOrigin
  readonly type?: Client.ClientType
  readonly createdAt?: Date
  readonly lastUsedAt?: Date
}) =>
  new Client.Client({
    id: ClientId.make("client-1"),
    name: "Test client",
    type: fields.type ?? "public",
    origin: fields.origin ?? "dynamic",
    redirectUris: ["http://127.0.0.1/cb"],
    secretHash: Option.none(),
    createdAt: fields.createdAt ?? onDay(0),
    lastUsedAt: Option.fromNullable(fields.lastUsedAt)
  })

const origins: ReadonlyArray<Client.ClientOrigin> = ["dynamic", "seeded", "builtin"]
const types: ReadonlyArray<Client.ClientType> = ["public", "confidential"]
const everyKind = origins.flatMap((origin) => types.map((type) => [origin, type] as const))

describe("Client: who is reapable, who consents, who gets refresh tokens", () => {
  it.each([
    ["dynamic", "public", true, true, true],
    ["dynamic", "confidential", false, true, false],
    ["seeded", "public", false, false, true],
    ["seeded", "confidential", false, false, false],
    ["builtin", "public", false, false, true],
    ["builtin", "confidential", false, false, false]
  ] as const)(
    "%s %s → reapable %s, consent %s, refresh tokens %s",
    (origin, type, reapable, consent, refreshTokens) => {
      const c = client({ origin, type })
      expect(Client.isReapable(c)).toBe(reapable)
      expect(Client.requiresConsent(c)).toBe(consent)
      expect(Client.receivesRefreshTokens(c)).toBe(refreshTokens)
    }
  )
})

describe("Client.lastActivity", () => {
  it("is createdAt when never used", () => {
    expect(Client.lastActivity(client({ createdAt: onDay(3) }))).toEqual(onDay(3))
  })

  it("is lastUsedAt once used", () => {
    expect(Client.lastActivity(client({ createdAt: onDay(3), lastUsedAt: onDay(40) }))).toEqual(onDay(40))
  })
})

describe("Client.isIdle", () => {
  it.each([
    ["never used, 90 days minus 1 ms after creation", undefined, onDay(90, -1), false],
    ["never used, exactly 90 days after creation", undefined, onDay(90), true],
    ["never used, 90 days plus 1 ms after creation", undefined, onDay(90, 1), true],
    ["never used, a year later", undefined, onDay(365), true],
    ["never used, just created", undefined, onDay(0), false],
    ["used on day 89, on day 90", onDay(89), onDay(90), false],
    ["used on day 89, on day 178", onDay(89), onDay(178), false],
    ["used on day 89, 1 ms before day 179", onDay(89), onDay(179, -1), false],
    ["used on day 89, on day 179", onDay(89), onDay(179), true],
    ["used on day 89, on day 200", onDay(89), onDay(200), true],
    ["used on day 0, on day 90", onDay(0), onDay(90), true]
  ])("a dynamic public client %s → %s", (_, lastUsedAt, now, expected) => {
    const c = lastUsedAt === undefined ? client({}) : client({ lastUsedAt })
    expect(Client.isIdle(c, now)).toBe(expected)
  })

  it.each(everyKind.filter(([origin, type]) => !(origin === "dynamic" && type === "public")))(
    "a %s %s client is never idle, however old",
    (origin, type) => {
      expect(Client.isIdle(client({ origin, type }), onDay(10_000))).toBe(false)
      expect(Client.isIdle(client({ origin, type, lastUsedAt: onDay(1) }), onDay(10_000))).toBe(false)
    }
  )
})

describe("Client.idleCutoff", () => {
  it.each([
    [onDay(90), onDay(0)],
    [onDay(179), onDay(89)],
    [onDay(90, -1), onDay(0, -1)]
  ])("idleCutoff(%s) = %s", (now, expected) => {
    expect(Client.idleCutoff(now)).toEqual(expected)
  })

  it("agrees with isIdle for any dates and any kind of client", () => {
    const instant = fc.integer({ min: epoch - 400 * day, max: epoch + 400 * day })
    fc.assert(
      fc.property(
        fc.constantFrom(...everyKind),
        instant,
        fc.option(instant, { nil: undefined }),
        // Bias `now` towards the 90-day boundary so the edge is exercised, not just sampled.
        fc.oneof(
          instant,
          fc.integer({ min: -2, max: 2 }).map((delta) => ({ delta }))
        ),
        ([origin, type], created, lastUsed, nowChoice) => {
          const c = client(
            lastUsed === undefined
              ? { origin, type, createdAt: new Date(created) }
              : { origin, type, createdAt: new Date(created), lastUsedAt: new Date(lastUsed) }
          )
          const now =
            typeof nowChoice === "number"
              ? new Date(nowChoice)
              : new Date(Client.lastActivity(c).getTime() + 90 * day + nowChoice.delta)
          expect(Client.isIdle(c, now)).toBe(
            Client.isReapable(c) && Client.lastActivity(c).getTime() <= Client.idleCutoff(now).getTime()
          )
          expect(Client.idleCutoff(now).getTime()).toBe(now.getTime() - 90 * day)
        }
      ),
      { numRuns: 2000 }
    )
  })
})
