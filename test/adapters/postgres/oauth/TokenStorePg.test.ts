import { randomUUID } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as OAuthStoragePg from "../../../../adapters/postgres/oauth/OAuthStoragePg.js"
import { ClientRepository } from "../../../../application/oauth/ports/ClientRepository.js"
import { TokenStore } from "../../../../application/oauth/ports/TokenStore.js"
import { type FamilyId, GrantId } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/oauth/Fixtures.js"
import * as TestDatabase from "../../../support/TestDatabase.js"

/** A client, a user and a grant with an access token and a refresh-token family. */
const grant = Effect.gen(function* () {
  const client = Fixtures.client()
  yield* Effect.flatMap(ClientRepository, (clients) => clients.insert(client))
  const user = yield* Fixtures.user()
  const family = Fixtures.family({
    clientId: client.id,
    userId: user.id,
    grantId: GrantId.make(randomUUID())
  })
  const access = Fixtures.accessToken({
    clientId: client.id,
    userId: user.id,
    familyId: Option.some(family.id),
    grantId: family.grantId
  })
  yield* Effect.flatMap(TokenStore, (tokens) =>
    tokens.issue({ access, refresh: Option.some({ family, tokenHash: Fixtures.secret("lkr_").hash }) })
  )
  return { client, user, family }
})

/**
 * What a rotation of the family does in its transaction: it holds the family's row and mints an
 * access token. The transaction stays open until `release`; `holding` says when it got that far.
 */
const rotationInFlight = (
  g: Effect.Effect.Success<typeof grant>,
  holding: Deferred.Deferred<void>,
  release: Deferred.Deferred<void>
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tokens = yield* TokenStore
    const minted = Fixtures.accessToken({
      clientId: g.client.id,
      userId: g.user.id,
      familyId: Option.some(g.family.id),
      grantId: g.family.grantId
    })
    yield* Effect.gen(function* () {
      yield* sql`SELECT id FROM oauth.refresh_token_families WHERE id = ${g.family.id} FOR UPDATE`
      yield* tokens.issue({ access: minted, refresh: Option.none() })
      yield* Deferred.succeed(holding, undefined)
      yield* Deferred.await(release)
    }).pipe(sql.withTransaction, Effect.orDie)
    return minted
  })

/** Starts `revoke` while a rotation of the family is in flight, then lets the rotation commit. */
const revokeDuringRotation = <A>(
  g: Effect.Effect.Success<typeof grant>,
  revoke: (familyId: FamilyId) => Effect.Effect<A>
) =>
  Effect.gen(function* () {
    const holding = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const rotation = yield* Effect.fork(rotationInFlight(g, holding, release))
    yield* Deferred.await(holding)
    const revocation = yield* Effect.fork(revoke(g.family.id))
    yield* TestDatabase.lockWaitOrEnd(revocation)
    yield* Deferred.succeed(release, undefined)
    const minted = yield* Fiber.join(rotation)
    return { minted, revoked: yield* Fiber.join(revocation) }
  })

const now = Time.plus(Fixtures.t0, "1 hour")

// Two sessions at once: the embedded database serves only one.
describe.skipIf(TestDatabase.isEmbedded("server"))("TokenStorePg under concurrent rotation", () => {
  layer(Layer.provideMerge(OAuthStoragePg.layer, TestDatabase.layer("server")), {
    timeout: "60 seconds",
    // The lock-wait poll sleeps on the real clock.
    excludeTestServices: true
  })(TestDatabase.describeTarget("server"), (it) => {
    it.effect("revoking a family revokes the access token of a rotation it had to wait for", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const g = yield* grant
        const { minted, revoked } = yield* revokeDuringRotation(g, (id) => tokens.revokeFamily(id, now))
        expect(revoked).toBe(true)
        expect(Option.getOrThrow(yield* tokens.findAccess(minted.hash)).revokedAt).toEqual(Option.some(now))
      })
    )

    it.effect("revoking a grant revokes the access token of a rotation it had to wait for", () =>
      Effect.gen(function* () {
        const tokens = yield* TokenStore
        const g = yield* grant
        const grantId = Option.getOrThrow(g.family.grantId)
        const { minted, revoked } = yield* revokeDuringRotation(g, () => tokens.revokeGrant(grantId, now))
        // The family, the access token issued with it and the one the rotation minted.
        expect(revoked).toBe(3)
        expect(Option.getOrThrow(yield* tokens.findAccess(minted.hash)).revokedAt).toEqual(Option.some(now))
      })
    )
  })
})
