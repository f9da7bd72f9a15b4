import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { introspect } from "../../../application/oauth/Introspect.js"
import { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import { reapIdleClients } from "../../../application/oauth/ReapIdleClients.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

const days = (n: number) => TestClock.adjust(Duration.days(n))
const active = (token: Redacted.Redacted<string>) =>
  Effect.map(introspect(Redacted.value(token), Option.none()), (result) => result.active)

describe("oauth lifetimes, on the clock", () => {
  it.effect("an access token is active for 7 days and not a moment longer", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const tokens = yield* Harness.publicLogin(client.id)
      expect(tokens.expiresIn).toBe(7 * 24 * 3600)
      yield* TestClock.adjust(Duration.subtract(Duration.days(7), Duration.seconds(1)))
      expect(yield* active(tokens.accessToken)).toBe(true)
      yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* active(tokens.accessToken)).toBe(false)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("a refresh token used on day 29 lives to day 59", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const first = yield* Harness.publicLogin(client.id)
      yield* days(29)
      const second = yield* Harness.refreshWith(client.id, Option.getOrThrow(first.refreshToken))
      yield* days(29)
      yield* TestClock.adjust(Duration.subtract(Duration.days(1), Duration.seconds(1)))
      const third = yield* Harness.refreshWith(client.id, Option.getOrThrow(second.refreshToken))
      expect(Option.isSome(third.refreshToken)).toBe(true)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("a refresh token used on day 29 and not again is dead on day 59", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const first = yield* Harness.publicLogin(client.id)
      yield* days(29)
      const second = yield* Harness.refreshWith(client.id, Option.getOrThrow(first.refreshToken))
      yield* days(30)
      const refused = yield* Effect.either(
        Harness.refreshWith(client.id, Option.getOrThrow(second.refreshToken))
      )
      expect(Either.isLeft(refused) && refused.left.description).toBe("refresh token has expired")
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("a refresh token unused for 30 days is dead", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const first = yield* Harness.publicLogin(client.id)
      yield* days(30)
      const refused = yield* Effect.either(
        Harness.refreshWith(client.id, Option.getOrThrow(first.refreshToken))
      )
      expect(Either.isLeft(refused) && refused.left.code).toBe("invalid_grant")
      expect(yield* active(Option.getOrThrow(first.refreshToken))).toBe(false)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("an authorize on day 89 saves a dynamic client from the 90-day reaper", () =>
    Effect.gen(function* () {
      const clients = yield* ClientRepository
      const client = yield* Harness.dynamicClient
      yield* days(89)
      yield* Harness.loginFlow(client.id)
      yield* days(1)
      const day90 = Option.getOrThrow(yield* reapIdleClients)
      expect(day90.clients).not.toContain(client.id)
      yield* days(88)
      expect(Option.getOrThrow(yield* reapIdleClients).clients).not.toContain(client.id)
      yield* days(1)
      expect(Option.getOrThrow(yield* reapIdleClients).clients).toContain(client.id)
      expect(Option.isNone(yield* clients.findById(client.id))).toBe(true)
    }).pipe(Effect.provide(Harness.layer))
  )
})
