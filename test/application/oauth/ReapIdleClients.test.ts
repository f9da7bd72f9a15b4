import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as JobLockMemory from "../../../adapters/memory/JobLockMemory.js"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import { AuthorizationCodeStore } from "../../../application/oauth/ports/AuthorizationCodeStore.js"
import { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import { ConsentStore } from "../../../application/oauth/ports/ConsentStore.js"
import { PendingLoginStore } from "../../../application/oauth/ports/PendingLoginStore.js"
import { SessionStore } from "../../../application/oauth/ports/SessionStore.js"
import { TokenStore } from "../../../application/oauth/ports/TokenStore.js"
import { UsedAssertions } from "../../../application/oauth/ports/UsedAssertions.js"
import { reapIdleClients } from "../../../application/oauth/ReapIdleClients.js"
import { JobLock } from "../../../application/ports/JobLock.js"
import { batchSize } from "../../../application/Reaping.js"
import { ClientId } from "../../../domain/Ids.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

/*
 * What each store reaps or purges is its own rule (their contract suites); the reaper decides
 * when it runs, on which instant, and what it reports. Its stores here answer fixed counts and
 * note the instant they were asked about; any method the reaper should not call dies.
 */

const asked: Array<string> = []

const answering =
  <A>(store: string, answer: A) =>
  (now: Date) =>
    Effect.sync(() => {
      asked.push(`${store} at ${now.toISOString()}`)
      return answer
    })

const stores = Layer.mergeAll(
  Layer.mock(ClientRepository, {
    reapIdle: answering("clients", [ClientId.make("idle-a"), ClientId.make("idle-b")])
  }),
  Layer.mock(AuthorizationCodeStore, { purge: answering("codes", 3) }),
  Layer.mock(PendingLoginStore, { purge: answering("pending logins", 4) }),
  Layer.mock(TokenStore, { purge: answering("tokens", { accessTokens: 5, families: 6 }) }),
  Layer.mock(ConsentStore, { purge: answering("pending consents", 7) }),
  Layer.mock(SessionStore, { purge: answering("sessions", 8) }),
  Layer.mock(UsedAssertions, { purge: answering("used assertions", 9) }),
  JobLockMemory.layer
)

/** Stores that die on any call: the reaper must not touch them. */
const untouchable = Layer.mergeAll(
  Layer.mock(ClientRepository, {}),
  Layer.mock(AuthorizationCodeStore, {}),
  Layer.mock(PendingLoginStore, {}),
  Layer.mock(TokenStore, {}),
  Layer.mock(ConsentStore, {}),
  Layer.mock(SessionStore, {}),
  Layer.mock(UsedAssertions, {}),
  JobLockMemory.layer
)

describe("ReapIdleClients (the reaper job)", () => {
  it.effect("reaps idle clients and purges every store at the clock's instant, reporting each count", () =>
    Effect.gen(function* () {
      asked.length = 0
      yield* TestClock.adjust(Duration.days(100))
      const report = yield* reapIdleClients
      expect(report).toEqual(
        Option.some({
          clients: ["idle-a", "idle-b"],
          codes: 3,
          pendingLogins: 4,
          pendingConsents: 7,
          sessions: 8,
          accessTokens: 5,
          families: 6,
          usedAssertions: 9
        })
      )
      const instant = new Date(Duration.toMillis(Duration.days(100))).toISOString()
      expect([...asked].sort()).toEqual(
        [
          "clients",
          "codes",
          "pending consents",
          "pending logins",
          "sessions",
          "tokens",
          "used assertions"
        ].map((store) => `${store} at ${instant}`)
      )
    }).pipe(Effect.provide(stores))
  )

  it.effect("drains each store batch after batch, until a batch comes back short", () =>
    Effect.gen(function* () {
      const limits: Array<string> = []
      /** Full batches `full` times, then `last`; notes each call's limit. */
      const batches = <A>(store: string, full: A, times: number, last: A) => {
        let calls = 0
        return (_now: Date, limit: number) =>
          Effect.sync(() => {
            limits.push(`${store} ${limit}`)
            calls++
            return calls <= times ? full : last
          })
      }
      const idle = (prefix: string, count: number) =>
        Array.from({ length: count }, (_, index) => ClientId.make(`${prefix}-${index}`))
      const report = yield* reapIdleClients.pipe(
        Effect.provide(
          Layer.mergeAll(
            Layer.mock(ClientRepository, {
              reapIdle: batches("clients", idle("full", batchSize), 1, idle("last", 3))
            }),
            Layer.mock(AuthorizationCodeStore, { purge: batches("codes", batchSize, 2, 7) }),
            Layer.mock(PendingLoginStore, { purge: batches("pending logins", batchSize, 0, 0) }),
            // Full while either kind is: tokens end after a batch where both are short.
            Layer.mock(TokenStore, {
              purge: batches("tokens", { accessTokens: 1, families: batchSize }, 1, {
                accessTokens: 2,
                families: 5
              })
            }),
            Layer.mock(ConsentStore, { purge: batches("pending consents", 1, 0, 1) }),
            Layer.mock(SessionStore, { purge: batches("sessions", batchSize, 1, batchSize - 1) }),
            Layer.mock(UsedAssertions, { purge: batches("used assertions", batchSize, 1, 0) }),
            JobLockMemory.layer
          )
        )
      )
      const reaped = Option.getOrThrow(report)
      expect(reaped.clients).toEqual([...idle("full", batchSize), ...idle("last", 3)])
      expect(reaped).toMatchObject({
        codes: 2 * batchSize + 7,
        pendingLogins: 0,
        accessTokens: 3,
        families: batchSize + 5,
        pendingConsents: 1,
        sessions: 2 * batchSize - 1,
        usedAssertions: batchSize
      })
      expect(limits.every((call) => call.endsWith(` ${batchSize}`))).toBe(true)
      expect(limits.filter((call) => call.startsWith("codes"))).toHaveLength(3)
      expect(limits.filter((call) => call.startsWith("tokens"))).toHaveLength(2)
    })
  )

  it.effect("skips, touching nothing, while another run holds the reaper's lock", () =>
    Effect.gen(function* () {
      const lock = yield* JobLock
      const inner = yield* lock.runExclusive("oauth.reaper", reapIdleClients)
      expect(inner).toEqual(Option.some(Option.none()))
      // Another job's lock is no reason to skip: this run goes ahead, and dies at the first store.
      const beside = yield* lock.runExclusive("another job", Effect.exit(reapIdleClients))
      expect(Option.map(beside, Exit.isFailure)).toEqual(Option.some(true))
    }).pipe(Effect.provide(untouchable))
  )

  it.effect("on the memory stores, a dynamic client is reaped on its 90th idle day; a seeded one stays", () =>
    Effect.gen(function* () {
      const clients = yield* ClientRepository
      const dynamic = yield* Harness.dynamicClient
      const { client: seeded } = yield* ManageClients.create({
        name: "operator's",
        redirectUris: ["https://app.example.com/cb"],
        confidential: false,
        clientId: Option.none(),
        secret: Option.none()
      })
      yield* TestClock.adjust(Duration.subtract(Duration.days(90), Duration.millis(1)))
      expect(Option.getOrThrow(yield* reapIdleClients).clients).toEqual([])
      yield* TestClock.adjust(Duration.millis(1))
      expect(Option.getOrThrow(yield* reapIdleClients).clients).toEqual([dynamic.id])
      expect(Option.isNone(yield* clients.findById(dynamic.id))).toBe(true)
      expect(Option.isSome(yield* clients.findById(seeded.id))).toBe(true)
    }).pipe(Effect.provide(Harness.layer))
  )
})
