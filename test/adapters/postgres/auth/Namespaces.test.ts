import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import { SessionStore } from "../../../../application/auth/ports/SessionStore.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as TestDatabase from "../../../support/TestDatabase.js"

const Tables = Schema.Struct({ tables: Schema.Array(Schema.String) })

/** Runs `effect` on the tables of one `DB_NAMESPACE`. */
const inNamespace =
  (namespace: string) =>
  <A, E>(effect: Effect.Effect<A, E, UserRepository | SessionStore>) =>
    Effect.provide(effect, AuthStoragePg.layer(namespace))

for (const target of ["pglite", "server"] as const) {
  layer(TestDatabase.authLayer(target, ["", "alpha", "beta"]), { timeout: "60 seconds" })(
    `DB_NAMESPACE on ${TestDatabase.describeTarget(target)}`,
    (it) =>
      describe("namespaces side by side in one database", () => {
        it.effect("every table and index carries the prefix", () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const rows = yield* sql`
              SELECT array_agg(relname::text ORDER BY relname) AS tables FROM pg_class c
              JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = 'auth' AND c.relkind IN ('r', 'i') AND relname LIKE 'alpha\\_%'`.pipe(
              Effect.flatMap(Schema.decodeUnknown(Schema.Array(Tables)))
            )
            const alpha = rows[0]?.tables ?? []
            expect(alpha).toEqual(
              expect.arrayContaining([
                "alpha_users",
                "alpha_identities",
                "alpha_sessions",
                "alpha_refresh_tokens",
                "alpha_schema_migrations",
                "alpha_users_email_partial_key",
                "alpha_users_phone_key",
                "alpha_identities_provider_id_provider_unique",
                "alpha_refresh_tokens_token_hash_unique"
              ])
            )
          })
        )

        it.effect("one email signs up once per namespace, and each namespace keeps its own users", () =>
          Effect.gen(function* () {
            const email = Fixtures.email()
            const signUp = Effect.gen(function* () {
              const users = yield* UserRepository
              const user = Fixtures.user({ email: Option.some(email) })
              yield* users.insert(user, [Fixtures.emailIdentity(user)], Option.none())
              const token = Fixtures.refreshToken()
              const session = Fixtures.session(user.id)
              yield* Effect.flatMap(SessionStore, (sessions) => sessions.start(session, token.hash))
              return { user, session }
            })
            const alpha = yield* inNamespace("alpha")(signUp)
            const beta = yield* inNamespace("beta")(signUp)
            const plain = yield* inNamespace("")(signUp)
            const found = (namespace: string) =>
              inNamespace(namespace)(
                Effect.flatMap(UserRepository, (users) => users.findByEmail(email)).pipe(
                  Effect.map(Option.map((user) => user.id))
                )
              )
            expect(yield* found("alpha")).toEqual(Option.some(alpha.user.id))
            expect(yield* found("beta")).toEqual(Option.some(beta.user.id))
            expect(yield* found("")).toEqual(Option.some(plain.user.id))
            const sessionIn = (namespace: string, id: typeof alpha.session.id) =>
              inNamespace(namespace)(Effect.flatMap(SessionStore, (sessions) => sessions.findById(id)))
            expect(Option.isSome(yield* sessionIn("alpha", alpha.session.id))).toBe(true)
            expect(yield* sessionIn("beta", alpha.session.id)).toEqual(Option.none())
            // Deleting in one namespace leaves the others alone.
            yield* inNamespace("alpha")(
              Effect.flatMap(UserRepository, (users) => users.delete(alpha.user.id))
            )
            expect(yield* found("alpha")).toEqual(Option.none())
            expect(yield* found("beta")).toEqual(Option.some(beta.user.id))
          })
        )
      })
  )
}
