import { randomUUID } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as OAuthStoragePg from "../../../../adapters/postgres/oauth/OAuthStoragePg.js"
import { UpstreamUsers } from "../../../../application/oauth/ports/UpstreamUsers.js"
import { IdentityId, UserId } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import type { User } from "../../../../domain/User.js"
import * as Fixtures from "../../../support/oauth/Fixtures.js"
import * as TestDatabase from "../../../support/TestDatabase.js"

const profile = (subject: string) => ({
  provider: "github",
  subject,
  email: Option.some("octocat@example.com"),
  emailVerified: true,
  data: { login: "octocat" }
})

const freshIds = () => ({ userId: UserId.make(randomUUID()), identityId: IdentityId.make(randomUUID()) })

// Two sessions at once: the embedded database serves only one.
describe.skipIf(TestDatabase.isEmbedded("server"))("UpstreamUsersPg under concurrent first logins", () => {
  layer(Layer.provideMerge(OAuthStoragePg.layer, TestDatabase.layer("server")), {
    timeout: "60 seconds",
    // The lock-wait poll sleeps on the real clock.
    excludeTestServices: true
  })(TestDatabase.describeTarget("server"), (it) => {
    it.effect("a first login that waited for another first login of the same person gets that user", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const users = yield* UpstreamUsers
        const subject = randomUUID()
        const created = yield* Deferred.make<User>()
        const release = yield* Deferred.make<void>()
        // The other login has created user and identity and not yet committed.
        const first = yield* Effect.fork(
          Effect.gen(function* () {
            yield* Deferred.succeed(
              created,
              yield* users.upsertFromUpstream(profile(subject), freshIds(), Fixtures.t0)
            )
            yield* Deferred.await(release)
          }).pipe(sql.withTransaction, Effect.orDie)
        )
        const user = yield* Deferred.await(created)
        const later = Time.plus(Fixtures.t0, "1 second")
        const second = yield* Effect.fork(users.upsertFromUpstream(profile(subject), freshIds(), later))
        yield* TestDatabase.lockWaitOrEnd(second)
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(first)
        const returning = yield* Fiber.join(second)
        expect(returning.id).toBe(user.id)
        expect(returning.lastSignInAt).toEqual(Option.some(later))
      })
    )
  })
})
