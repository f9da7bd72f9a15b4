import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AmrEntry } from "../../../../domain/auth/AccessTokenClaims.js"
import * as Session from "../../../../domain/auth/Session.js"
import type * as BatchedDelete from "../../BatchedDelete.js"

/**
 * The `sessions` table: its columns as `Session` reads them, its row codec both ways and its
 * statements, which take the qualified name of a table (`AuthTables.name`) and their values as
 * `$n` parameters. (Its `not_after` column, Supabase Auth's, is left to its default: how long
 * sessions last is the configuration's, `Session.Limits`.) Every statement that locks several
 * sessions locks them in id order, so that no two wait on each other — the refreshes that share
 * one rotation statement (`RefreshTokens.rotateText`) among them.
 */

type Name = (table: string) => string

/**
 * The columns of `Session`, read from the table under `alias`. `host(ip)`: the address as it
 * was given, without the `/32` a plain text cast adds.
 */
export const columnsOf = (alias: string) =>
  `${alias}.id, ${alias}.user_id, ${alias}.aal, ${alias}.factor_id, ${alias}.user_agent,
  host(${alias}.ip) AS ip, ${alias}.tag, ${alias}.amr::text AS amr, ${alias}.generation, ${alias}.refreshed_at,
  ${alias}.revoked_at, ${alias}.created_at, ${alias}.updated_at`

/** A session row: `amr` travels as JSON text, as every JSON column of the auth tables. */
export const RowFields = Schema.Struct({
  ...Session.Session.fields,
  amr: Schema.parseJson(Schema.Array(AmrEntry))
})

// Decoded field by field already: the class is not asked to validate them again.
export const toSession = (fields: ConstructorParameters<typeof Session.Session>[0]) =>
  new Session.Session(fields, true)

export const Row = Schema.transform(RowFields, Schema.typeSchema(Session.Session), {
  strict: true,
  decode: toSession,
  encode: (session) => ({ ...session })
})

/** $1 user, $2 a last-use cutoff (null: none): their sessions that have not ended, used after it. */
export const liveOfUserText = (name: Name) =>
  `SELECT ${columnsOf("s")} FROM ${name("sessions")} s
   WHERE user_id = $1 AND revoked_at IS NULL
     AND ($2::timestamptz IS NULL OR coalesce(refreshed_at, created_at) > $2::timestamptz)`

/** $1 session ids: those sessions, ended or not. */
export const findText = (name: Name) =>
  `SELECT ${columnsOf("s")} FROM ${name("sessions")} s WHERE id = ANY($1::uuid[])`

/** The columns a new session fills, in the order of `startText`'s arrays. */
const startedColumns = `id, user_id, aal, factor_id, user_agent, ip, tag, amr, generation,
  refreshed_at, revoked_at, created_at, updated_at`

/**
 * Sessions started together (Batched.ts), each with its first refresh token, in one statement:
 * each input is one element of the arrays, in the order of `startParameters`, the last the first
 * token's digest. The tokens' reference to their sessions is checked at the end of the
 * statement, when the session rows exist.
 */
export const startText = (name: Name) =>
  `WITH input AS (
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::text[],
       $6::inet[], $7::text[], $8::jsonb[], $9::int[], $10::timestamptz[], $11::timestamptz[],
       $12::timestamptz[], $13::timestamptz[], $14::text[])
       AS i(${startedColumns}, token_hash)
   ), started AS (
     INSERT INTO ${name("sessions")} (${startedColumns}) SELECT ${startedColumns} FROM input
   )
   INSERT INTO ${name("refresh_tokens")} (token_hash, user_id, session_id, generation, created_at, updated_at)
   SELECT token_hash, user_id, id, generation, created_at, created_at FROM input`

const encodeRow = Schema.encodeSync(Row)
const encodeAmr = Schema.encodeSync(RowFields.fields.amr)

/** A session started with its first token's digest. */
export interface Start {
  readonly session: Session.Session
  readonly firstToken: string
}

/** `startText`'s parameters for some sessions: an array per column. */
export const startParameters = (starts: ReadonlyArray<Start>) => {
  const rows = starts.map(({ session }) => encodeRow(session))
  return [
    rows.map((row) => row.id),
    rows.map((row) => row.userId),
    rows.map((row) => row.aal),
    rows.map((row) => row.factorId),
    rows.map((row) => row.userAgent),
    rows.map((row) => row.ip),
    rows.map((row) => row.tag),
    rows.map((row) => row.amr),
    rows.map((row) => row.generation),
    rows.map((row) => row.refreshedAt),
    rows.map((row) => row.revokedAt),
    rows.map((row) => row.createdAt),
    rows.map((row) => row.updatedAt),
    starts.map((start) => start.firstToken)
  ]
}

export const IdRow = Schema.Struct({ id: Session.SessionId })

/** $1 session: its id while it is live, locked. */
export const lockLiveText = (name: Name) =>
  `SELECT id FROM ${name("sessions")} WHERE id = $1 AND revoked_at IS NULL FOR UPDATE`

/** $1 user: the ids of their live sessions, locked in id order. */
export const lockLiveOfUserText = (name: Name) =>
  `SELECT id FROM ${name("sessions")} WHERE user_id = $1 AND revoked_at IS NULL ORDER BY id FOR UPDATE`

/** $1 user, $2 a session to keep: the ids of their other live sessions, locked in id order. */
export const lockLiveOfUserButText = (name: Name) =>
  `SELECT id FROM ${name("sessions")}
   WHERE user_id = $1 AND revoked_at IS NULL AND id <> $2 ORDER BY id FOR UPDATE`

/** $1 user: the ids of all their sessions, ended or not, locked in id order. */
export const lockAllOfUserText = (name: Name) =>
  `SELECT id FROM ${name("sessions")} WHERE user_id = $1 ORDER BY id FOR UPDATE`

/**
 * The sessions `lock` locks (a statement of this module selecting `id … FOR UPDATE` in id order,
 * its parameters first) ended at the parameter `now`, and their tokens let go
 * (`RefreshTokens.letGoOfText`): one statement, so a logout is one round trip inside a transaction
 * or out of one. Answers how many it ended.
 */
export const endLockedText = (name: Name, lock: string, now: string, letGo: string) =>
  `WITH locked AS (${lock}),
   ended AS (
     UPDATE ${name("sessions")} SET revoked_at = ${now}, updated_at = ${now}
     WHERE id IN (SELECT id FROM locked) AND revoked_at IS NULL RETURNING id
   ),
   let_go AS (${letGo})
   SELECT count(*)::int AS ended FROM ended`

export const EndedRow = Schema.Struct({ ended: Schema.Int })

/** $1 user, $2 now: ends their live sessions. */
export const revokeOfUserText = (name: Name) =>
  `UPDATE ${name("sessions")} SET revoked_at = $2, updated_at = $2 WHERE user_id = $1 AND revoked_at IS NULL`

/**
 * $1 session: the live sessions of its user, locked in id order, for a raise. All of them, not
 * the raised one alone: the raise ends the user's other aal1 sessions too, and a lock taken out
 * of id order first could deadlock with a raise of another of the user's sessions, or a logout
 * of them all, that locks in id order.
 */
export const lockLiveOfSessionUserText = (name: Name) =>
  `SELECT ${columnsOf("s")} FROM ${name("sessions")} s
   WHERE s.user_id = (SELECT o.user_id FROM ${name("sessions")} o WHERE o.id = $1)
     AND s.revoked_at IS NULL
   ORDER BY s.id FOR UPDATE`

/**
 * A raised session's columns for `RefreshTokens.raiseText`: $1 id, $2 aal, $3 factor, $4 amr,
 * $5 generation, $6 now.
 */
export const raiseParameters = (raised: Session.Session, now: Date) => [
  raised.id,
  raised.aal,
  Option.getOrNull(raised.factorId),
  // Only the column that needs encoding is encoded: the whole row's codec validates every field
  // of the class first, which a verify paid for on every step up.
  encodeAmr(raised.amr),
  raised.generation,
  now
]

/** $1 user, $2 factor: the sessions of the user the factor raised, ended or not, locked in id order. */
export const lockRaisedByText = (name: Name) =>
  `SELECT ${columnsOf("s")} FROM ${name("sessions")} s
   WHERE s.user_id = $1 AND s.factor_id = $2 ORDER BY s.id FOR UPDATE`

/**
 * The sessions as `Assurance.lower` left them (`lowerParameters`), in one statement: $1 ids,
 * $2 aal levels, $3 amr as JSON text, each an array in the sessions' order; $4 now.
 */
export const lowerText = (name: Name) =>
  `UPDATE ${name("sessions")} s
   SET aal = l.aal, factor_id = NULL, amr = l.amr::jsonb, updated_at = $4
   FROM unnest($1::uuid[], $2::text[], $3::text[]) AS l(id, aal, amr)
   WHERE s.id = l.id`

export const lowerParameters = (lowered: ReadonlyArray<Session.Session>, now: Date) => {
  const rows = lowered.map((session) => encodeRow(session))
  return [rows.map((row) => row.id), rows.map((row) => row.aal), rows.map((row) => row.amr), now]
}

/**
 * $1 ended before, $2 at most: the sessions that ended before $1, for the reaper; their tokens
 * go with them (`refresh_tokens.session_id` cascades). The partial index on `revoked_at`
 * (migration 0014) finds them.
 */
export const endedBatch = (name: Name): BatchedDelete.Batch => ({
  table: name("sessions"),
  key: "id",
  where: "candidate.revoked_at < $1",
  limit: "$2"
})

/**
 * $1 a sign-in cutoff, $2 a last-use cutoff (either null: none), $3 the batch size: sessions,
 * ended or not, that signed in before $1 or were last used before $2. No index finds them: one
 * on `refreshed_at` would cost every refresh its in-place update, for a reaper that scans the
 * table once a run.
 */
export const outlivedBatch = (name: Name): BatchedDelete.Batch => ({
  table: name("sessions"),
  key: "id",
  where: "candidate.created_at < $1 OR coalesce(candidate.refreshed_at, candidate.created_at) < $2",
  limit: "$3"
})
