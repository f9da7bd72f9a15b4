import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  ChallengedTooSoon,
  type ChallengeUse,
  FactorLimitReached,
  FactorStore
} from "../../../application/auth/ports/FactorStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as Factor from "../../../domain/auth/Factor.js"
import * as RecoveryCodes from "../../../domain/auth/RecoveryCodes.js"
import type { UserId } from "../../../domain/Ids.js"
import * as BatchedDelete from "../BatchedDelete.js"
import { PgPool } from "../PgPool.js"
import * as Prepared from "../Prepared.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import * as SharedStatements from "../SharedStatements.js"
import * as UniqueViolation from "../UniqueViolation.js"
import { AuthTables } from "./AuthTables.js"
import * as MfaChallenges from "./tables/MfaChallenges.js"
import * as MfaFactors from "./tables/MfaFactors.js"
import * as MfaRecoveryCodes from "./tables/MfaRecoveryCodes.js"

const IdRow = Schema.Struct({ id: Schema.String })
const CountsRow = Schema.Struct({ enrolled: Schema.Int, verified: Schema.Int })
const StatusRow = Schema.Struct({ total: Schema.Int, remaining: Schema.Int })
/** `useChallenge`'s answer: whether the challenge was open, and the spent challenge's id if it was spent. */
const UseRow = Schema.Struct({ open: Schema.Int, id: Schema.NullOr(Schema.String) })
const decodeUse = Schema.decodeUnknown(UseRow)
const decodeChallenge = Schema.decodeUnknown(MfaChallenges.Row)
const LastChallengedRow = Schema.Struct({ lastChallengedAt: Schema.OptionFromNullOr(Schema.DateFromSelf) })

/**
 * Factors, challenges and recovery codes on Postgres. Every once-only transition is one
 * conditional statement on its row (`verified_at IS NULL`, `status = 'unverified'`,
 * `last_totp_step < $step`, `used_at IS NULL`), so of concurrent attempts exactly one changes it;
 * a recovery-code attempt locks its set's factor row, so attempts on one set are counted one after
 * the other. Statements run through `@effect/sql`, so every verb joins the caller's transaction
 * (the verbs of several statements become a savepoint in it).
 */
export const layer = Layer.effect(
  FactorStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* AuthTables
    const pool = yield* PgPool
    const factors = sql(tables.name("mfa_factors"))
    const users = sql(tables.name("users"))
    const challenges = sql(tables.name("mfa_challenges"))
    const codes = sql(tables.name("mfa_recovery_codes"))
    const factorColumns = sql.unsafe(MfaFactors.columnsOf("f"))
    const challengeColumns = sql.unsafe(MfaChallenges.columns)
    const toFactor = (row: typeof MfaFactors.Row.Type) => MfaFactors.stored(row).factor

    // Every factor endpoint loads its factor, and a verify its challenge, before anything is
    // written: those arriving together share one prepared statement (inside a transaction, the
    // statement runs alone on its connection).
    const findFactor = yield* SharedStatements.make({
      sql,
      pool,
      statement: Prepared.statement(
        `auth_find_factors_${tables.prefix}`,
        `SELECT ${MfaFactors.columnsOf("f")} FROM ${tables.name("mfa_factors")} f
         WHERE (f.user_id, f.id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`
      ),
      parameters: (keys: ReadonlyArray<{ readonly userId: string; readonly factorId: string }>) => [
        keys.map((key) => key.userId),
        keys.map((key) => key.factorId)
      ],
      row: MfaFactors.Row,
      answers: (rows, keys) =>
        keys.map((key) =>
          Option.fromNullable(rows.find((row) => row.id === key.factorId && row.userId === key.userId))
        )
    })
    const findChallenge = yield* SharedStatements.make({
      sql,
      pool,
      statement: Prepared.statement(
        `auth_find_mfa_challenges_${tables.prefix}`,
        `SELECT ${MfaChallenges.columns} FROM ${tables.name("mfa_challenges")}
         WHERE (id, factor_id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`
      ),
      parameters: (keys: ReadonlyArray<{ readonly factorId: string; readonly challengeId: string }>) => [
        keys.map((key) => key.challengeId),
        keys.map((key) => key.factorId)
      ],
      row: MfaChallenges.Row,
      answers: (rows, keys) =>
        keys.map((key) =>
          Option.fromNullable(rows.find((row) => row.id === key.challengeId && row.factorId === key.factorId))
        )
    })

    const readFactors = decodeAll(MfaFactors.Row)
    const readFactor = decodeFirst(MfaFactors.Row)

    /** The user's recovery-code factor, locked for the transaction when `lock`. */
    const recoverySet = (userId: string, lock: boolean) =>
      sql`SELECT ${factorColumns} FROM ${factors} f
          WHERE f.user_id = ${userId} AND f.factor_type = 'recovery_code'
          ${lock ? sql`FOR UPDATE` : sql``}`.pipe(readFactor, Effect.map(Option.map(MfaFactors.stored)))

    /** A factor's unique violations as the port's errors; any other failure is a defect. */
    const refuse = (factor: Pick<Factor.Factor, "friendlyName" | "phone">) =>
      UniqueViolation.failOn((constraint) => MfaFactors.conflict(factor, constraint))

    const countOf = (userId: UserId) =>
      sql`SELECT count(*) FILTER (WHERE factor_type <> 'recovery_code')::int AS enrolled,
            count(*) FILTER (WHERE factor_type <> 'recovery_code' AND status = 'verified')::int AS verified
          FROM ${factors} WHERE user_id = ${userId}`.pipe(
        decodeFirst(CountsRow),
        Effect.map(Option.getOrElse(() => ({ enrolled: 0, verified: 0 }))),
        Effect.orDie
      )

    /** A factor of the user deleted, its challenges locked first as a verify locks them. */
    const removeOne = (userId: UserId, factorId: Factor.FactorId) =>
      sql`WITH held AS (
            SELECT id FROM ${challenges} WHERE factor_id = ${factorId} ORDER BY id FOR UPDATE
          )
          DELETE FROM ${factors} AS f WHERE f.user_id = ${userId} AND f.id = ${factorId}
            AND (SELECT count(*) FROM held) >= 0
          RETURNING ${factorColumns}`.pipe(readFactor, Effect.map(Option.map(toFactor)))

    return {
      enrol: Telemetry.fn("FactorStorePg.enrol")(
        (factor, secret, limits, replaces = []) =>
          sql
            .withTransaction(
              Effect.gen(function* () {
                // The user's row, not the factors': an insert into mfa_factors takes only a
                // key-share lock on it (the foreign key), which this one lets through, while
                // concurrent enrolments of the user count one after the other. Taken before the
                // replaced factors go: else one enrolment could hold a deleted row that another,
                // holding the user's row, waits on through the unique index of names.
                yield* sql`SELECT id FROM ${users} WHERE id = ${factor.userId} FOR NO KEY UPDATE`
                for (const replaced of replaces) yield* removeOne(factor.userId, replaced)
                const counts = yield* countOf(factor.userId)
                if (!Factor.withinLimits(counts, limits)) return yield* new FactorLimitReached()
                yield* sql`INSERT INTO ${factors} ${sql.insert(MfaFactors.row(factor, secret))}`
              })
            )
            .pipe(Effect.catchTag("SqlError", refuse(factor))),
        (factor) => ({ "user.id": factor.userId, "factor.id": factor.id })
      ),
      list: Telemetry.fn("FactorStorePg.list")((userId) =>
        sql`SELECT ${factorColumns} FROM ${factors} f WHERE f.user_id = ${userId}
            ORDER BY f.created_at, f.id`.pipe(
          readFactors,
          Effect.map((rows) => rows.map(toFactor))
        )
      ),
      find: Telemetry.fn("FactorStorePg.find")((userId, factorId) =>
        Effect.map(findFactor({ userId, factorId }), Option.map(MfaFactors.stored))
      ),
      count: Telemetry.fn("FactorStorePg.count")(countOf),
      markVerified: Telemetry.fn("FactorStorePg.markVerified")((userId, factorId, now, registration) =>
        sql`UPDATE ${factors} AS f SET status = 'verified', updated_at = ${now}
            ${Option.match(registration, {
              onNone: () => sql``,
              onSome: ({ credential, aaguid }) =>
                sql`, web_authn_credential = ${MfaFactors.credentialJson(credential)}::jsonb,
                    web_authn_aaguid = ${Option.getOrNull(aaguid)}::uuid`
            })}
            WHERE f.user_id = ${userId} AND f.id = ${factorId} AND f.status = 'unverified'
            RETURNING ${factorColumns}`.pipe(readFactor, Effect.map(Option.map(toFactor)))
      ),
      update: Telemetry.fn("FactorStorePg.update")((userId, factorId, changes, now) =>
        sql`UPDATE ${factors} AS f SET ${sql.update({
          updatedAt: now,
          ...Option.match(changes.friendlyName, {
            onNone: () => ({}),
            onSome: (friendlyName) => ({ friendlyName })
          }),
          ...Option.match(changes.phone, { onNone: () => ({}), onSome: (phone) => ({ phone }) })
        })}
            WHERE f.user_id = ${userId} AND f.id = ${factorId}
            RETURNING ${factorColumns}`.pipe(
          Effect.catchTag("SqlError", (error) =>
            refuse({ friendlyName: Option.getOrElse(changes.friendlyName, () => ""), phone: changes.phone })(
              error
            ).pipe(
              // An update keeps the factor's type: the one-set-per-user index cannot fire.
              Effect.catchTag("RecoveryCodesExist", Effect.die)
            )
          ),
          Effect.flatMap((rows) => readFactor(Effect.succeed(rows))),
          Effect.map(Option.map(toFactor))
        )
      ),
      // The factors' challenges locked before the factors, as a verify locks them (its
      // challenge, then the factor for the code's step): a removal that took the factor first
      // and its challenges in the cascade could deadlock with a verify of one of them.
      remove: Telemetry.fn("FactorStorePg.remove")(removeOne),
      removeAll: Telemetry.fn("FactorStorePg.removeAll")((userId) =>
        sql`WITH held AS (
              SELECT c.id FROM ${challenges} c JOIN ${factors} h ON h.id = c.factor_id
              WHERE h.user_id = ${userId} ORDER BY c.id FOR UPDATE OF c
            )
            DELETE FROM ${factors} AS f WHERE f.user_id = ${userId} AND (SELECT count(*) FROM held) >= 0
            RETURNING ${factorColumns}`.pipe(
          readFactors,
          Effect.map((rows) => rows.map(toFactor))
        )
      ),
      removeAbandoned: Telemetry.fn("FactorStorePg.removeAbandoned")((createdBefore, limit) =>
        BatchedDelete.count(
          sql,
          {
            table: tables.name("mfa_factors"),
            key: "id",
            where: `candidate.status = 'unverified' AND candidate.created_at < $1
              AND NOT EXISTS (SELECT 1 FROM ${tables.name("mfa_challenges")} c WHERE c.factor_id = candidate.id)`,
            limit: "$2"
          },
          [createdBefore, limit]
        )
      ),

      advanceWebAuthnCounter: Telemetry.fn("FactorStorePg.advanceWebAuthnCounter")((factorId, signCount) =>
        sql`UPDATE ${factors}
            SET web_authn_credential = jsonb_set(web_authn_credential, '{signCount}', to_jsonb(${signCount}::bigint))
            WHERE id = ${factorId} AND web_authn_credential IS NOT NULL
              AND ((web_authn_credential->>'signCount')::bigint < ${signCount}
                OR (${signCount}::bigint = 0 AND (web_authn_credential->>'signCount')::bigint = 0))
            RETURNING id`.pipe(
          decodeAll(IdRow),
          Effect.map((rows) => rows.length > 0)
        )
      ),

      replaceSecret: Telemetry.fn("FactorStorePg.replaceSecret")((factorId, from, to) =>
        sql`UPDATE ${factors} SET secret = ${to}
            WHERE id = ${factorId} AND secret = ${from}
            RETURNING id`.pipe(
          decodeAll(IdRow),
          Effect.map((rows) => rows.length > 0)
        )
      ),

      createChallenge: Telemetry.fn("FactorStorePg.createChallenge")(
        (challenge, lastBefore) =>
          sql
            .withTransaction(
              Effect.gen(function* () {
                // The stamp takes the factor's row lock: a concurrent challenge waits for this
                // transaction and then finds the new stamp too recent.
                const stamped = yield* sql`
                UPDATE ${factors} SET last_challenged_at = ${challenge.createdAt}
                WHERE id = ${challenge.factorId}
                  ${Option.match(lastBefore, {
                    onNone: () => sql``,
                    onSome: (before) =>
                      sql`AND (last_challenged_at IS NULL OR last_challenged_at < ${before})`
                  })}
                RETURNING id`.pipe(decodeAll(IdRow))
                if (stamped.length === 0) {
                  const factor = yield* sql`
                  SELECT last_challenged_at FROM ${factors} WHERE id = ${challenge.factorId}`.pipe(
                    decodeFirst(LastChallengedRow)
                  )
                  const last = Option.flatMap(factor, (row) => row.lastChallengedAt)
                  if (Option.isNone(last)) return false
                  return yield* new ChallengedTooSoon({ lastChallengedAt: last.value })
                }
                yield* sql`INSERT INTO ${challenges} ${sql.insert(MfaChallenges.row(challenge))}`.pipe(
                  Effect.orDie
                )
                return true
              })
            )
            .pipe(Effect.catchTag("SqlError", Effect.die)),
        (challenge) => ({ "factor.id": challenge.factorId, "challenge.id": challenge.id })
      ),
      findChallenge: Telemetry.fn("FactorStorePg.findChallenge")((factorId, challengeId) =>
        findChallenge({ factorId, challengeId })
      ),
      // The challenge locked first: of concurrent verifies of one challenge the later ones find
      // it spent; the factor's row then orders verifies of different challenges with one code.
      useChallenge: Telemetry.fn("FactorStorePg.useChallenge")((factorId, challengeId, now, totpStep) =>
        sql
          .unsafe(
            `WITH input AS (${MfaChallenges.spendInputOfOne}), ${MfaChallenges.spendCtes(tables.name)}
             SELECT (SELECT count(*) FROM open)::int AS open, spent.* FROM (SELECT 1) AS one LEFT JOIN spent ON true`,
            [challengeId, factorId, now, Option.getOrNull(totpStep)]
          )
          .pipe(
            Effect.flatMap(([row]) =>
              Effect.gen(function* () {
                const { id, open } = yield* decodeUse(row)
                if (open === 0) return { _tag: "Gone" } satisfies ChallengeUse
                if (id === null) return { _tag: "StepRefused" } satisfies ChallengeUse
                return { _tag: "Used", challenge: yield* decodeChallenge(row) } satisfies ChallengeUse
              })
            ),
            Effect.orDie
          )
      ),
      takeChallenge: Telemetry.fn("FactorStorePg.takeChallenge")((factorId, challengeId) =>
        sql`DELETE FROM ${challenges} WHERE id = ${challengeId} AND factor_id = ${factorId}
            RETURNING ${challengeColumns}`.pipe(decodeFirst(MfaChallenges.Row))
      ),
      reapChallenges: Telemetry.fn("FactorStorePg.reapChallenges")((createdBefore, limit) =>
        BatchedDelete.count(
          sql,
          {
            table: tables.name("mfa_challenges"),
            key: "id",
            where: "candidate.created_at < $1",
            limit: "$2"
          },
          [createdBefore, limit]
        )
      ),

      createRecoveryCodes: Telemetry.fn("FactorStorePg.createRecoveryCodes")(
        (factor, codeHashes) =>
          sql
            .withTransaction(
              Effect.gen(function* () {
                yield* sql`INSERT INTO ${factors} ${sql.insert(MfaFactors.row(factor, Option.none()))}`
                if (codeHashes.length > 0) {
                  yield* sql`INSERT INTO ${codes} ${sql.insert(
                    MfaRecoveryCodes.rows(factor.id, codeHashes, factor.createdAt)
                  )}`
                }
              })
            )
            .pipe(
              Effect.catchTag("SqlError", (error) =>
                refuse(factor)(error).pipe(
                  // The set's factor has no number: the one-factor-per-number index cannot fire.
                  Effect.catchTag("FactorPhoneTaken", Effect.die)
                )
              )
            ),
        (factor) => ({ "user.id": factor.userId, "factor.id": factor.id })
      ),
      replaceRecoveryCodes: Telemetry.fn("FactorStorePg.replaceRecoveryCodes")(
        (userId, codeHashes, now) =>
          sql
            .withTransaction(
              Effect.gen(function* () {
                const set = yield* sql`
                  UPDATE ${factors} AS f SET updated_at = ${now}, failed_attempts = 0, locked_until = NULL
                  WHERE f.user_id = ${userId} AND f.factor_type = 'recovery_code'
                  RETURNING ${factorColumns}`.pipe(readFactor, Effect.map(Option.map(toFactor)))
                if (Option.isNone(set)) return set
                yield* sql`DELETE FROM ${codes} WHERE factor_id = ${set.value.id}`
                if (codeHashes.length > 0) {
                  yield* sql`INSERT INTO ${codes} ${sql.insert(MfaRecoveryCodes.rows(set.value.id, codeHashes, now))}`
                }
                return set
              })
            )
            .pipe(Effect.catchTag("SqlError", Effect.die)),
        (userId) => ({ "user.id": userId })
      ),
      recoveryCodes: Telemetry.fn("FactorStorePg.recoveryCodes")((userId) =>
        Effect.gen(function* () {
          const set = yield* recoverySet(userId, false)
          if (Option.isNone(set)) return Option.none()
          const status = yield* sql`
            SELECT count(*)::int AS total, count(*) FILTER (WHERE used_at IS NULL)::int AS remaining
            FROM ${codes} WHERE factor_id = ${set.value.factor.id}`.pipe(
            decodeFirst(StatusRow),
            Effect.map(Option.getOrElse(() => ({ total: 0, remaining: 0 })))
          )
          return Option.some({ factor: set.value.factor, status })
        })
      ),
      attemptRecoveryCode: Telemetry.fn("FactorStorePg.attemptRecoveryCode")(
        (userId, codeHash, policy, now) =>
          sql
            .withTransaction(
              Effect.gen(function* () {
                const set = yield* recoverySet(userId, true)
                if (Option.isNone(set)) return Option.none()
                const { factor, attempts } = set.value
                const matched =
                  Option.isSome(codeHash) && !RecoveryCodes.isLocked(attempts, now)
                    ? (yield* sql`
                        UPDATE ${codes} SET used_at = ${now}
                        WHERE factor_id = ${factor.id} AND code_hash = ${codeHash.value} AND used_at IS NULL
                        RETURNING id`.pipe(decodeAll(IdRow))).length > 0
                    : false
                const outcome = RecoveryCodes.attempt(policy, attempts, matched, now)
                const next = RecoveryCodes.after(attempts, outcome)
                if (outcome._tag !== "Locked") {
                  yield* sql`
                    UPDATE ${factors} SET failed_attempts = ${next.failedAttempts},
                      locked_until = ${Option.getOrNull(next.lockedUntil)}
                    WHERE id = ${factor.id}`
                }
                return Option.some({ factor, outcome })
              })
            )
            .pipe(Effect.catchTag("SqlError", Effect.die)),
        (userId) => ({ "user.id": userId })
      )
    }
  })
)
