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
import { maxFailedAttempts, OneTimeToken, type Purpose } from "../../../domain/auth/OneTimeToken.js"
import type { UserId } from "../../../domain/Ids.js"
import { PgPool } from "../PgPool.js"
import * as Prepared from "../Prepared.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import * as SharedStatements from "../SharedStatements.js"
import { AuthTables } from "./AuthTables.js"

const IdRow = Schema.Struct({ id: Schema.String })
const CreatedRow = Schema.Struct({ createdAt: Schema.DateFromSelf })

/**
 * Codes used for the verifications that arrive together (Batched.ts): each input is one element
 * of the arrays — $1 user, $2 the purposes it may have (comma-separated), $3 the code's digest,
 * $4 now — and `position` says which input a used token answers. PostgreSQL updates a row once
 * per statement, so of one code presented twice in a batch one input gets it.
 */
const useCodesText = (tokens: string) =>
  `WITH input AS (
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[])
       WITH ORDINALITY AS i(user_id, purposes, code_hash, used_at, position)
   )
   UPDATE ${tokens} t SET used_at = i.used_at
   FROM input i
   WHERE t.user_id = i.user_id AND t.purpose = ANY(string_to_array(i.purposes, ','))
     AND t.expires_at > i.used_at AND t.failed_attempts < ${maxFailedAttempts}
     AND t.code_hash = i.code_hash AND t.used_at IS NULL
   RETURNING t.*, i.position`

const UsedRow = Schema.Struct({ ...OneTimeToken.fields, position: Schema.NumberFromString })

interface CodeUse {
  readonly userId: UserId
  readonly purposes: ReadonlyArray<Purpose>
  readonly codeHash: string
  readonly now: Date
}

/**
 * One-time tokens on Postgres. Using a token is one conditional `UPDATE … RETURNING` of its row
 * (`used_at IS NULL`), so of concurrent presentations exactly one gets it; a wrong code is
 * counted in the same kind of single statement. Statements run through `@effect/sql`, so `issue` joins the caller's transaction.
 */
export const layer = Layer.effect(
  OneTimeTokenStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* PgPool
    const tables = yield* AuthTables
    const tokens = sql(tables.name("one_time_tokens"))
    const encode = Schema.encodeSync(OneTimeToken)

    const useCodesStatement = Prepared.statement(
      `auth_use_codes_${tables.prefix}`,
      useCodesText(tables.name("one_time_tokens"))
    )
    const useCodes = yield* SharedStatements.make({
      sql,
      pool,
      statement: useCodesStatement,
      parameters: (uses: ReadonlyArray<CodeUse>) => [
        uses.map((use) => use.userId),
        uses.map((use) => use.purposes.join(",")),
        uses.map((use) => use.codeHash),
        uses.map((use) => use.now)
      ],
      row: UsedRow,
      answers: (rows, uses) => {
        const byPosition = new Map<number, OneTimeToken>()
        for (const { position, ...token } of rows) {
          // Decoded field by field already: the class is not asked to validate them again.
          if (!byPosition.has(position)) byPosition.set(position, new OneTimeToken(token, true))
        }
        return uses.map((_, i) => Option.fromNullable(byPosition.get(i + 1)))
      }
    })

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
            const used = yield* useCodes({ userId, purposes, codeHash, now })
            if (Option.isSome(used)) return { _tag: "Used", token: used.value } satisfies CodeOutcome
            const counted = yield* sql`
              UPDATE ${tokens} SET failed_attempts = failed_attempts + 1
              WHERE user_id = ${userId} AND purpose IN ${sql.in(purposes)} AND expires_at > ${now}
                AND failed_attempts < ${maxFailedAttempts} AND used_at IS NULL
              RETURNING id`.pipe(decodeAll(IdRow))
            return (counted.length > 0 ? { _tag: "Wrong" } : { _tag: "None" }) satisfies CodeOutcome
          }),
        (userId) => ({ "user.id": userId })
      ),
      endAllOf: Telemetry.fn("OneTimeTokenStorePg.endAllOf")(
        (userId) => sql`DELETE FROM ${tokens} WHERE user_id = ${userId}`.pipe(Effect.asVoid, Effect.orDie),
        (userId) => ({ "user.id": userId })
      )
    }
  })
)
