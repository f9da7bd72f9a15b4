import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { SigningKeyStore } from "../../../application/auth/ports/SigningKeyStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as SigningKey from "../../../domain/auth/SigningKey.js"
import { decodeAll } from "../Rows.js"
import { AuthTables } from "./AuthTables.js"

/** A change whose key had moved: rolls the transaction of `update` back. */
class Moved extends Schema.TaggedError<Moved>()("Moved", {}) {}

const jsonOf = (key: SigningKey.SigningKey) =>
  Option.getOrNull(Option.map(key.privateJwk, (jwk) => JSON.stringify(Redacted.value(jwk))))

/**
 * `auth.<prefix>signing_keys` (migration 0003). The private key is stored as JWK JSON: the
 * migration says why it cannot be a digest and what protects it.
 */
export const layer = Layer.effect(
  SigningKeyStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const table = sql((yield* AuthTables).name("signing_keys"))
    return {
      list: Telemetry.fn("SigningKeyStorePg.list")(() =>
        sql`
          SELECT kid, algorithm, status, private_jwk, created_at, activated_at, stopped_signing_at, retired_at
          FROM ${table} ORDER BY created_at, kid`.pipe(decodeAll(SigningKey.SigningKey))
      )(),
      insert: Telemetry.fn("SigningKeyStorePg.insert")(
        (key) =>
          // No conflict target: a taken kid and a second current key (the partial unique index)
          // both make the insert do nothing.
          sql`
            INSERT INTO ${table}
              (kid, algorithm, status, private_jwk, created_at, activated_at, stopped_signing_at, retired_at)
            VALUES (${key.kid}, ${key.algorithm}, ${key.status}, ${jsonOf(key)}::jsonb, ${key.createdAt},
                    ${Option.getOrNull(key.activatedAt)}, ${Option.getOrNull(key.stoppedSigningAt)},
                    ${Option.getOrNull(key.retiredAt)})
            ON CONFLICT DO NOTHING
            RETURNING kid`.pipe(
            Effect.map((rows) => rows.length === 1),
            Effect.orDie
          ),
        (key) => ({ "key.id": key.kid })
      ),
      update: Telemetry.fn("SigningKeyStorePg.update")((changes) =>
        // In the order given, so that a rotation demotes before it promotes; a row another
        // transaction changed meanwhile no longer matches its `before` status.
        Effect.forEach(
          changes,
          ({ before, after }) =>
            sql`
              UPDATE ${table} SET
                status = ${after.status},
                private_jwk = ${jsonOf(after)}::jsonb,
                activated_at = ${Option.getOrNull(after.activatedAt)},
                stopped_signing_at = ${Option.getOrNull(after.stoppedSigningAt)},
                retired_at = ${Option.getOrNull(after.retiredAt)}
              WHERE kid = ${before.kid} AND status = ${before.status}
              RETURNING kid`.pipe(
              Effect.flatMap((rows) => (rows.length === 1 ? Effect.void : Effect.fail(new Moved())))
            ),
          { discard: true }
        ).pipe(
          sql.withTransaction,
          Effect.as(true),
          Effect.catchTag("Moved", () => Effect.succeed(false)),
          Effect.orDie
        )
      )
    }
  })
)
