import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { PasskeyStore, TooManyPasskeys } from "../../../application/auth/ports/PasskeyStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as Passkey from "../../../domain/auth/Passkey.js"
import * as BatchedDelete from "../BatchedDelete.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import * as UniqueViolation from "../UniqueViolation.js"
import { AuthTables } from "./AuthTables.js"
import * as WebAuthnChallenges from "./tables/WebAuthnChallenges.js"
import * as WebAuthnCredentials from "./tables/WebAuthnCredentials.js"

const CountRow = Schema.Struct({ count: Schema.Int })

/**
 * Passkeys and their challenges on Postgres. A registration locks its user's row in `users` for
 * its transaction before counting the user's passkeys, so concurrent registrations of one user
 * count one after the other and cannot pass the limit together (a lock on the passkey rows would
 * not do: a registration sees no row inserted after its count began); a credential id stored
 * meanwhile is caught by the unique index. A challenge is spent by `DELETE … RETURNING` and a
 * sign counter moves by an `UPDATE` conditional on the stored one, so of concurrent attempts
 * exactly one changes the row. Statements run through `@effect/sql`, so every verb joins the
 * caller's transaction (a registration becomes a savepoint in it).
 */
export const layer = Layer.effect(
  PasskeyStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* AuthTables
    const users = sql(tables.name("users"))
    const passkeys = sql(tables.name("webauthn_credentials"))
    const challenges = sql(tables.name("webauthn_challenges"))
    const passkeyColumns = sql.unsafe(WebAuthnCredentials.columnsOf("p"))
    const challengeColumns = sql.unsafe(WebAuthnChallenges.columns)

    const readPasskeys = decodeAll(WebAuthnCredentials.Row)
    const readPasskey = decodeFirst(WebAuthnCredentials.Row)

    return {
      register: Telemetry.fn("PasskeyStorePg.register")(
        (passkey, maxPerUser) =>
          sql
            .withTransaction(
              Effect.gen(function* () {
                // The user's row, not the passkeys': an insert into webauthn_credentials takes
                // only a key-share lock on it (the foreign key), which this one lets through.
                yield* sql`SELECT id FROM ${users} WHERE id = ${passkey.userId} FOR NO KEY UPDATE`
                const held = yield* sql`
                  SELECT count(*)::int AS count FROM ${passkeys} WHERE user_id = ${passkey.userId}`.pipe(
                  decodeFirst(CountRow),
                  Effect.map(Option.match({ onNone: () => 0, onSome: (row) => row.count }))
                )
                if (!Passkey.mayRegister(held, maxPerUser)) return yield* new TooManyPasskeys({ maxPerUser })
                yield* sql`INSERT INTO ${passkeys} ${sql.insert(WebAuthnCredentials.row(passkey))}`
              })
            )
            .pipe(
              Effect.catchTag(
                "SqlError",
                UniqueViolation.failOn((constraint) => WebAuthnCredentials.conflict(passkey, constraint))
              )
            ),
        (passkey) => ({ "user.id": passkey.userId, "passkey.id": passkey.id })
      ),
      list: Telemetry.fn("PasskeyStorePg.list")((userId) =>
        sql`SELECT ${passkeyColumns} FROM ${passkeys} p WHERE p.user_id = ${userId}
            ORDER BY p.created_at, p.id`.pipe(readPasskeys)
      ),
      findByCredential: Telemetry.fn("PasskeyStorePg.findByCredential")(
        (userId, credentialId) =>
          Option.match(WebAuthnCredentials.credentialIdBytes(credentialId), {
            // Not base64url: no stored credential has that id.
            onNone: () => Effect.succeed(Option.none()),
            onSome: (bytes) =>
              sql`SELECT ${passkeyColumns} FROM ${passkeys} p
                  WHERE p.credential_id = ${bytes} AND p.user_id = ${userId}`.pipe(readPasskey)
          }),
        (userId) => ({ "user.id": userId })
      ),
      rename: Telemetry.fn("PasskeyStorePg.rename")(
        (userId, passkeyId, friendlyName, now) =>
          sql`UPDATE ${passkeys} AS p SET friendly_name = ${friendlyName}, updated_at = ${now}
              WHERE p.user_id = ${userId} AND p.id = ${passkeyId}
              RETURNING ${passkeyColumns}`.pipe(readPasskey),
        (userId, passkeyId) => ({ "user.id": userId, "passkey.id": passkeyId })
      ),
      remove: Telemetry.fn("PasskeyStorePg.remove")(
        (userId, passkeyId) =>
          sql`DELETE FROM ${passkeys} AS p WHERE p.user_id = ${userId} AND p.id = ${passkeyId}
              RETURNING ${passkeyColumns}`.pipe(readPasskey),
        (userId, passkeyId) => ({ "user.id": userId, "passkey.id": passkeyId })
      ),
      removeAll: Telemetry.fn("PasskeyStorePg.removeAll")(
        (userId) =>
          sql`DELETE FROM ${passkeys} AS p WHERE p.user_id = ${userId} RETURNING ${passkeyColumns}`.pipe(
            readPasskeys
          ),
        (userId) => ({ "user.id": userId })
      ),
      recordUse: Telemetry.fn("PasskeyStorePg.recordUse")(
        (passkeyId, use) =>
          // `Passkey.signCountAccepted` as the row's condition: a concurrent update with the same
          // counter waits for the row and then finds it no longer below. The counter is cast:
          // compared with a literal, a parameter would be read as an integer, too small for it.
          sql`UPDATE ${passkeys} AS p
              SET sign_count = ${use.signCount}::bigint, backed_up = ${use.backedUp},
                last_used_at = ${use.at}, updated_at = ${use.at}
              WHERE p.id = ${passkeyId}
                AND (p.sign_count < ${use.signCount}::bigint
                  OR (p.sign_count = 0 AND ${use.signCount}::bigint = 0))
              RETURNING ${passkeyColumns}`.pipe(readPasskey),
        (passkeyId) => ({ "passkey.id": passkeyId })
      ),

      createChallenge: Telemetry.fn("PasskeyStorePg.createChallenge")(
        (challenge) =>
          sql`INSERT INTO ${challenges} ${sql.insert(WebAuthnChallenges.row(challenge))}`.pipe(
            Effect.asVoid,
            Effect.orDie
          ),
        (challenge) => ({ "challenge.id": challenge.id })
      ),
      takeChallenge: Telemetry.fn("PasskeyStorePg.takeChallenge")(
        (challengeId, purpose, userId) =>
          sql`DELETE FROM ${challenges}
              WHERE id = ${challengeId} AND challenge_type = ${purpose}
                AND ${Option.match(userId, {
                  onNone: () => sql`user_id IS NULL`,
                  onSome: (id) => sql`user_id = ${id}`
                })}
              RETURNING ${challengeColumns}`.pipe(decodeFirst(WebAuthnChallenges.Row)),
        (challengeId) => ({ "challenge.id": challengeId })
      ),
      reapChallenges: Telemetry.fn("PasskeyStorePg.reapChallenges")((now, limit) =>
        BatchedDelete.count(
          sql,
          {
            table: tables.name("webauthn_challenges"),
            key: "id",
            where: "candidate.expires_at < $1",
            limit: "$2"
          },
          [now, limit]
        )
      )
    }
  })
)
