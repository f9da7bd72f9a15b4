import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as NodeSecrets from "../../../../adapters/crypto/NodeSecrets.js"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import { SessionStore } from "../../../../application/auth/ports/SessionStore.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import * as RefreshSession from "../../../../application/auth/RefreshSession.js"
import { Secrets } from "../../../../application/ports/Secrets.js"
import { authPolicy } from "../../../../domain/auth/RefreshPolicy.js"
import * as Session from "../../../../domain/auth/Session.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as TestDatabase from "../../../support/TestDatabase.js"

const Dump = Schema.Struct({ dump: Schema.String })
const policy = authPolicy({ rotationEnabled: true, reuseInterval: Duration.seconds(10) })

for (const target of ["pglite", "server"] as const) {
  layer(
    Layer.merge(
      AuthStoragePg.layer("").pipe(Layer.provideMerge(TestDatabase.authLayer(target))),
      NodeSecrets.layer
    ),
    { timeout: "60 seconds" }
  )(`auth refresh tokens at rest on ${TestDatabase.describeTarget(target)}`, (it) =>
    describe("sessions and refresh tokens hold no token in plaintext", () => {
      it.effect("digests only, and the sealed child only until the next rotation", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const sessions = yield* SessionStore
          const secrets = yield* Secrets
          const user = Fixtures.user()
          yield* Effect.flatMap(UserRepository, (users) =>
            users.insert(user, [Fixtures.emailIdentity(user)], Option.none())
          )
          const first = Fixtures.refreshToken()
          yield* sessions.start(Fixtures.session(user.id), first.hash)
          const rotate = (parent: typeof first, at: Date) =>
            Effect.gen(function* () {
              const child = Fixtures.refreshToken()
              const sealed = yield* secrets.seal(parent.plaintext, child.plaintext)
              yield* RefreshSession.present({
                presented: parent.hash,
                child: { hash: child.hash, sealed },
                policy,
                limits: Session.unlimited,
                now: at
              })
              return child
            })
          const second = yield* rotate(first, Time.plus(Fixtures.t0, "1 hour"))
          const third = yield* rotate(second, Time.plus(Fixtures.t0, "2 hours"))

          const dump = yield* sql`
            SELECT (SELECT json_agg(t)::text FROM auth.refresh_tokens t) ||
                   (SELECT json_agg(s)::text FROM auth.sessions s) AS dump`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(Dump)))
          )
          const text = dump[0]?.dump ?? ""
          for (const token of [first, second, third]) {
            expect(text).not.toContain(Redacted.value(token.plaintext).slice(4))
            expect(text).toContain(token.hash)
          }
          const Sealed = Schema.Struct({ generation: Schema.Number })
          const sealedRows = yield* sql`
            SELECT generation FROM auth.refresh_tokens WHERE sealed_child IS NOT NULL`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(Sealed)))
          )
          // Only the live token's parent keeps a sealed child.
          expect(sealedRows).toEqual([{ generation: 1 }])
        })
      )
    })
  )
}
