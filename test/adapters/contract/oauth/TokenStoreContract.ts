import { randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ClientRepository } from "../../../../application/oauth/ports/ClientRepository.js"
import {
  type RotateRequest,
  type Rotation,
  TokenStore
} from "../../../../application/oauth/ports/TokenStore.js"
import { type ClientId, GrantId, type SecretHash } from "../../../../domain/Ids.js"
import * as AccessToken from "../../../../domain/oauth/AccessToken.js"
import { oauthPolicy } from "../../../../domain/oauth/RefreshPolicy.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/oauth/Fixtures.js"
import { concurrently, type It, wholeBatch } from "../Storage.js"

/** A client, a user and a fresh grant: an access token plus a refresh-token family. */
const grant = Effect.gen(function* () {
  const tokens = yield* TokenStore
  const client = Fixtures.client()
  yield* Effect.flatMap(ClientRepository, (clients) => clients.insert(client))
  const user = yield* Fixtures.user()
  const family = Fixtures.family({
    clientId: client.id,
    userId: user.id,
    grantId: GrantId.make(randomUUID())
  })
  const refresh = Fixtures.secret("lkr_")
  const access = Fixtures.accessToken({
    clientId: client.id,
    userId: user.id,
    familyId: Option.some(family.id),
    grantId: family.grantId
  })
  yield* tokens.issue({ access, refresh: Option.some({ family, tokenHash: refresh.hash }) })
  return { client, user, family, refresh: refresh.hash, access: access.hash }
})

const request = (presented: SecretHash, presenter: ClientId, now: Date): RotateRequest => ({
  presented,
  presenter,
  policy: oauthPolicy,
  childHash: Fixtures.secret("lkr_").hash,
  accessHash: Fixtures.secret("lka_").hash,
  accessExpiresAt: AccessToken.expiryFor(now),
  now
})

const decisionOf = (rotation: Rotation): string =>
  rotation._tag === "UnknownToken" ? "UnknownToken" : rotation.decision._tag

export const tokenStoreContract = (it: It) =>
  describe("TokenStore", () => {
    it.effect("stores and finds an access token and a refresh token", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const g = yield* grant
        const access = Option.getOrThrow(yield* tokens.findAccess(g.access))
        expect(access.clientId).toBe(g.client.id)
        expect(access.familyId).toEqual(Option.some(g.family.id))
        const refresh = Option.getOrThrow(yield* tokens.findRefresh(g.refresh))
        expect(refresh.generation).toBe(0)
        expect(refresh.family).toEqual(g.family)
      })
    )

    it.effect("rotation retires the presented token and makes its child the live one", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const g = yield* grant
        const now = Time.plus(Fixtures.t0, "1 hour")
        const first = request(g.refresh, g.client.id, now)
        const rotated = yield* tokens.rotate(first)
        expect(decisionOf(rotated)).toBe("Rotate")
        const child = Option.getOrThrow(yield* tokens.findRefresh(first.childHash))
        expect(child.generation).toBe(1)
        expect(child.family.expiresAt).toEqual(Option.some(Time.plus(now, "30 days")))
        const access = Option.getOrThrow(yield* tokens.findAccess(first.accessHash))
        expect(access.userId).toBe(g.user.id)
        expect(access.resource).toEqual(g.family.resource)
        expect(access.expiresAt).toEqual(Time.plus(now, "7 days"))
        const next = yield* tokens.rotate(request(first.childHash, g.client.id, Time.plus(now, "1 hour")))
        expect(decisionOf(next)).toBe("Rotate")
      })
    )

    it.effect("a replayed token revokes the family and every access token minted with it", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const g = yield* grant
        const first = request(g.refresh, g.client.id, Time.plus(Fixtures.t0, "1 hour"))
        yield* tokens.rotate(first)
        const replay = yield* tokens.rotate(
          request(g.refresh, g.client.id, Time.plus(Fixtures.t0, "2 hours"))
        )
        expect(decisionOf(replay)).toBe("ReuseDetected")
        const child = yield* tokens.rotate(
          request(first.childHash, g.client.id, Time.plus(Fixtures.t0, "3 hours"))
        )
        expect(decisionOf(child)).toBe("Revoked")
        const now = Time.plus(Fixtures.t0, "3 hours")
        for (const hash of [g.access, first.accessHash]) {
          expect(AccessToken.isActive(Option.getOrThrow(yield* tokens.findAccess(hash)), now)).toBe(false)
        }
      })
    )

    it.effect("another client's token is refused and the family survives", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const g = yield* grant
        const other = Fixtures.client()
        yield* Effect.flatMap(ClientRepository, (clients) => clients.insert(other))
        const foreign = yield* tokens.rotate(request(g.refresh, other.id, Fixtures.t0))
        expect(decisionOf(foreign)).toBe("WrongClient")
        expect(decisionOf(yield* tokens.rotate(request(g.refresh, g.client.id, Fixtures.t0)))).toBe("Rotate")
      })
    )

    it.effect("sliding lifetime: used on day 29 it lives to day 59; unused for 30 days it is dead", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const g = yield* grant
        const day29 = request(g.refresh, g.client.id, Time.plus(Fixtures.t0, "29 days"))
        expect(decisionOf(yield* tokens.rotate(day29))).toBe("Rotate")
        const day58 = request(day29.childHash, g.client.id, Time.plus(Fixtures.t0, "58 days"))
        expect(decisionOf(yield* tokens.rotate(day58))).toBe("Rotate")
        const day88 = request(day58.childHash, g.client.id, Time.plus(Fixtures.t0, "88 days"))
        expect(decisionOf(yield* tokens.rotate(day88))).toBe("Expired")
      })
    )

    it.effect("an unknown refresh token is reported as such", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const g = yield* grant
        expect(
          decisionOf(yield* tokens.rotate(request(Fixtures.secret().hash, g.client.id, Fixtures.t0)))
        ).toBe("UnknownToken")
      })
    )

    it.effect(`of ${concurrently} concurrent refreshes with one token exactly one rotates`, () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const g = yield* grant
        const results = yield* Effect.all(
          Array.from({ length: concurrently }, () =>
            tokens.rotate(request(g.refresh, g.client.id, Fixtures.t0))
          ),
          { concurrency: "unbounded" }
        )
        expect(results.filter((r) => decisionOf(r) === "Rotate")).toHaveLength(1)
        // The others presented a retired token: a replay, so the family is revoked (RFC 9700 §4.14.2).
        expect(results.filter((r) => decisionOf(r) === "ReuseDetected").length).toBeGreaterThanOrEqual(1)
        const state = Option.getOrThrow(yield* tokens.findRefresh(g.refresh))
        expect(Option.isSome(state.family.revokedAt)).toBe(true)
      })
    )

    it.effect("concurrent refreshes of different grants each rotate their own family", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const grants = yield* Effect.all(Array.from({ length: 10 }, () => grant))
        const requests = grants.map((g) => request(g.refresh, g.client.id, Fixtures.t0))
        const results = yield* Effect.all(requests.map(tokens.rotate), { concurrency: "unbounded" })
        results.forEach((result, i) => {
          expect(decisionOf(result)).toBe("Rotate")
          expect(result._tag === "Decided" && result.family.id).toBe(grants[i]?.family.id)
        })
        for (const [i, r] of requests.entries()) {
          const child = Option.getOrThrow(yield* tokens.findRefresh(r.childHash))
          expect([child.family.id, child.generation]).toEqual([grants[i]?.family.id, 1])
          const access = Option.getOrThrow(yield* tokens.findAccess(r.accessHash))
          expect(access.familyId).toEqual(Option.some(grants[i]?.family.id))
        }
      })
    )

    it.effect("concurrent look-ups of several access tokens each find their own, or none", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const grants = yield* Effect.all(Array.from({ length: 5 }, () => grant))
        const unknown = Fixtures.secret("lka_").hash
        const hashes = [...grants.map((g) => g.access), unknown, ...grants.map((g) => g.access)]
        const found = yield* Effect.all(hashes.map(tokens.findAccess), { concurrency: "unbounded" })
        expect(found.map((token) => Option.map(token, (t) => t.hash))).toEqual(
          hashes.map((hash) => (hash === unknown ? Option.none() : Option.some(hash)))
        )
      })
    )

    it.effect(`of ${concurrently} concurrent revocations of an access token exactly one revokes it`, () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const g = yield* grant
        const results = yield* Effect.all(
          Array.from({ length: concurrently }, () => tokens.revokeAccess(g.access, Fixtures.t0)),
          { concurrency: "unbounded" }
        )
        expect(results.filter(Boolean)).toHaveLength(1)
        const token = Option.getOrThrow(yield* tokens.findAccess(g.access))
        expect(token.revokedAt).toEqual(Option.some(Fixtures.t0))
      })
    )

    it.effect(
      `of ${concurrently} concurrent revocations of a family exactly one revokes it, with its access tokens`,
      () =>
        Effect.gen(function* () {
          const tokens = yield* TokenStore
          const g = yield* grant
          const results = yield* Effect.all(
            Array.from({ length: concurrently }, () => tokens.revokeFamily(g.family.id, Fixtures.t0)),
            { concurrency: "unbounded" }
          )
          expect(results.filter(Boolean)).toHaveLength(1)
          expect(Option.isSome(Option.getOrThrow(yield* tokens.findAccess(g.access)).revokedAt)).toBe(true)
          expect(decisionOf(yield* tokens.rotate(request(g.refresh, g.client.id, Fixtures.t0)))).toBe(
            "Revoked"
          )
        })
    )

    it.effect("revoking a grant revokes its access tokens and families, and no other", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const g = yield* grant
        const bystander = yield* grant
        const grantId = Option.getOrThrow(g.family.grantId)
        expect(yield* tokens.revokeGrant(grantId, Fixtures.t0)).toBe(2)
        expect(yield* tokens.revokeGrant(grantId, Fixtures.t0)).toBe(0)
        expect(decisionOf(yield* tokens.rotate(request(g.refresh, g.client.id, Fixtures.t0)))).toBe("Revoked")
        const active = Option.getOrThrow(yield* tokens.findAccess(bystander.access))
        expect(AccessToken.isActive(active, Fixtures.t0)).toBe(true)
      })
    )

    it.effect("purge deletes at most `limit` of each kind a call, the rest on the calls after", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const dead = yield* Effect.all([grant, grant, grant])
        for (const revoked of dead) yield* tokens.revokeFamily(revoked.family.id, Fixtures.t0)
        const at = Time.plus(Fixtures.t0, "1 day")
        expect(yield* tokens.purge(at, 2)).toEqual({ accessTokens: 2, families: 2 })
        let purged = yield* tokens.purge(at, 2)
        while (purged.accessTokens === 2 || purged.families === 2) purged = yield* tokens.purge(at, 2)
        for (const revoked of dead) {
          expect(Option.isNone(yield* tokens.findRefresh(revoked.refresh))).toBe(true)
          expect(Option.isNone(yield* tokens.findAccess(revoked.access))).toBe(true)
        }
      })
    )

    it.effect("purge deletes dead tokens and families and keeps live ones", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const dead = yield* grant
        const live = yield* grant
        yield* tokens.revokeFamily(dead.family.id, Fixtures.t0)
        const purged = yield* tokens.purge(Time.plus(Fixtures.t0, "1 day"), wholeBatch)
        expect(purged.families).toBeGreaterThanOrEqual(1)
        expect(purged.accessTokens).toBeGreaterThanOrEqual(1)
        expect(Option.isNone(yield* tokens.findRefresh(dead.refresh))).toBe(true)
        expect(Option.isNone(yield* tokens.findAccess(dead.access))).toBe(true)
        expect(Option.isSome(yield* tokens.findRefresh(live.refresh))).toBe(true)
        expect(Option.isSome(yield* tokens.findAccess(live.access))).toBe(true)
      })
    )
  })
