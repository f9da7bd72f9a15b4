import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  type CodeOutcome,
  IssuedTooSoon,
  OneTimeTokenStore
} from "../../../application/auth/ports/OneTimeTokenStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import { maxFailedAttempts, OneTimeToken } from "../../../domain/auth/OneTimeToken.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import { AuthTables } from "./AuthTables.js"

const IdRow = Schema.Struct({ id: Schema.String })
const CreatedRow = Schema.Struct({ createdAt: Schema.DateFromSelf })

/**
 * One-time tokens on Postgres. Using a token is one conditional `UPDATE … RETURNING` of its row
 * (`used_at IS NULL`), so of concurrent presentations exactly one gets it; a wrong code is
 * counted in the same kind of single statement. Statements run through `@effect/sql`, so `issue` joins the caller's transaction.
 */
export const layer = Layer.effect(
  OneTimeTokenStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* AuthTables
    const tokens = sql(tables.name("one_time_tokens"))
    const encode = Schema.encodeSync(OneTimeToken)

    return {
      issue: Telemetry.fn("OneTimeTokenStorePg.issue")(
        (token, notAfter) =>
          Effect.gen(function* () {
            const row = encode(token)
            // The upsert replaces the live token only if it is old enough; otherwise it returns
            // nothing, and the live token's time says how long to wait.
            const issued = yield* sql`
              INSERT INTO ${tokens} AS t ${sql.insert(row)}
              ON CONFLICT (user_id, purpose) DO UPDATE SET
                id = EXCLUDED.id, sent_to = EXCLUDED.sent_to, link_hash = EXCLUDED.link_hash,
                code_hash = EXCLUDED.code_hash, failed_attempts = 0,
                created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, used_at = NULL,
                flow_state_id = EXCLUDED.flow_state_id
              WHERE ${Option.match(notAfter, {
                onNone: () => sql`true`,
                onSome: (at) => sql`t.created_at <= ${at}`
              })}
              RETURNING t.id`.pipe(decodeAll(IdRow))
            if (issued.length > 0) return
            const live = yield* sql`
              SELECT created_at FROM ${tokens} WHERE user_id = ${token.userId} AND purpose = ${token.purpose}`.pipe(
              decodeFirst(CreatedRow)
            )
            return yield* Effect.fail(
              new IssuedTooSoon({
                lastIssuedAt: Option.match(live, {
                  onNone: () => token.createdAt,
                  onSome: (row) => row.createdAt
                })
              })
            )
          }),
        (token) => ({ "user.id": token.userId, "token.purpose": token.purpose })
      ),
      useLink: Telemetry.fn("OneTimeTokenStorePg.useLink")((linkHash, purposes, now) =>
        sql`
          UPDATE ${tokens} SET used_at = ${now}
          WHERE link_hash = ${linkHash} AND purpose IN ${sql.in(purposes)} AND expires_at > ${now}
            AND failed_attempts < ${maxFailedAttempts} AND used_at IS NULL
          RETURNING *`.pipe(decodeFirst(OneTimeToken))
      ),
      useCode: Telemetry.fn("OneTimeTokenStorePg.useCode")(
        (userId, purposes, codeHash, now) =>
          Effect.gen(function* () {
            const used = yield* sql`
              UPDATE ${tokens} SET used_at = ${now}
              WHERE user_id = ${userId} AND purpose IN ${sql.in(purposes)} AND expires_at > ${now}
                AND failed_attempts < ${maxFailedAttempts} AND code_hash = ${codeHash} AND used_at IS NULL
              RETURNING *`.pipe(decodeFirst(OneTimeToken))
            if (Option.isSome(used)) return { _tag: "Used", token: used.value } satisfies CodeOutcome
            const counted = yield* sql`
              UPDATE ${tokens} SET failed_attempts = failed_attempts + 1
              WHERE user_id = ${userId} AND purpose IN ${sql.in(purposes)} AND expires_at > ${now}
                AND failed_attempts < ${maxFailedAttempts} AND used_at IS NULL
              RETURNING id`.pipe(decodeAll(IdRow))
            return (counted.length > 0 ? { _tag: "Wrong" } : { _tag: "None" }) satisfies CodeOutcome
          }),
        (userId) => ({ "user.id": userId })
      )
    }
  })
)
