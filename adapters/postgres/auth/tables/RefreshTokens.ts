import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Rotation } from "../../../../application/auth/ports/SessionStore.js"
import { SealedSecret } from "../../../../application/ports/Secrets.js"
import type * as BatchedDelete from "../../BatchedDelete.js"
import * as Sessions from "./Sessions.js"
import * as Users from "./Users.js"

/**
 * The `refresh_tokens` table: a session's tokens by their digests, its statements (which take
 * the qualified name of a table, `AuthTables.name`, and their values as `$n` parameters) and
 * the rows they answer with. A token is retired (`revoked`) when it rotates or its session
 * ends; only the live token's parent keeps its child, sealed, while a reuse interval holds.
 */

type Name = (table: string) => string

/**
 * `SessionStore.rotate` for the refreshes that arrive together (SharedStatements.ts): the
 * `Rotate` of `Session.present` is the WHERE clause (the presented token is its session's live
 * one, same generation, and the session has not ended), and the SET is `Session.rotate`; the
 * property test in test/adapters/contract/auth holds both to the rule. The sessions are locked
 * first, in id order (`locked`), as every statement that locks several sessions locks them, so
 * that a batch never waits on a sign-out of others that waits on it; the conditional UPDATE
 * then finds them locked, so of concurrent presentations of one token exactly one rotates, in
 * one batch or across several. Each input is one element of the arrays
 * (`rotateParameters`): $1 presented digest, $2 now, $3 sealed child (null: none kept), $4
 * child digest; `position` says which input a returned session answers, and `account` is the
 * session's user with their identities and factors (`Users.accountJsonOf`), read in the same
 * statement.
 */
export const rotateText = (name: Name) =>
  `WITH input AS (
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::timestamptz[],
       $6::timestamptz[], $7::timestamptz[])
       WITH ORDINALITY AS i(presented, rotated_at, sealed, child_hash, signed_in_since, used_since,
         low_aal_since, position)
   ), presented AS (
     SELECT i.*, t.session_id, t.generation AS token_generation
     FROM input i JOIN ${name("refresh_tokens")} t ON t.token_hash = i.presented
   ), locked AS (
     SELECT s.id FROM ${name("sessions")} s
     WHERE s.id IN (SELECT session_id FROM presented) AND s.revoked_at IS NULL
     ORDER BY s.id FOR UPDATE
   ), rotated AS (
     UPDATE ${name("sessions")} s
     SET generation = s.generation + 1, refreshed_at = p.rotated_at, updated_at = p.rotated_at
     FROM presented p JOIN locked l ON l.id = p.session_id
     WHERE s.id = p.session_id AND s.generation = p.token_generation AND s.revoked_at IS NULL
       AND (p.signed_in_since IS NULL OR s.created_at >= p.signed_in_since)
       AND (p.used_since IS NULL OR coalesce(s.refreshed_at, s.created_at) >= p.used_since)
       AND NOT (p.low_aal_since IS NOT NULL AND s.aal = 'aal1' AND s.created_at < p.low_aal_since
         AND EXISTS (SELECT 1 FROM ${name("mfa_factors")} f
                     WHERE f.user_id = s.user_id AND f.status = 'verified'))
     RETURNING s.*, p.position, p.presented, p.sealed, p.child_hash, p.rotated_at
   ), retired AS (
     UPDATE ${name("refresh_tokens")} t
     SET revoked = true, updated_at = r.rotated_at,
         sealed_child = CASE WHEN t.token_hash = r.presented THEN r.sealed ELSE NULL END
     FROM rotated r
     WHERE t.session_id = r.id AND (t.token_hash = r.presented OR t.sealed_child IS NOT NULL)
   ), child AS (
     INSERT INTO ${name("refresh_tokens")} (token_hash, user_id, parent, session_id, generation, created_at, updated_at)
     SELECT r.child_hash, r.user_id, r.presented, r.id, r.generation, r.rotated_at, r.rotated_at
     FROM rotated r
   )
   SELECT ${Sessions.columnsOf("r")}, r.position, ${Users.accountJsonOf(name, "r.user_id")} AS account
   FROM rotated r`

/** `rotateText`'s parameters for some rotations: an array per column. */
export const rotateParameters = (rotations: ReadonlyArray<Rotation>) => [
  rotations.map((rotation) => rotation.presented),
  rotations.map((rotation) => rotation.now),
  // A sealed secret is its own text: null when none is kept.
  rotations.map((rotation) => Option.getOrNull(rotation.sealed)),
  rotations.map((rotation) => rotation.child),
  // `Session.meets`, as the rotation's condition: null where no such limit is set; a session
  // below its user's highest level is an aal1 one of a user with a verified factor.
  rotations.map((rotation) => Option.getOrNull(rotation.cutoffs.signedInSince)),
  rotations.map((rotation) => Option.getOrNull(rotation.cutoffs.usedSince)),
  rotations.map((rotation) => Option.getOrNull(rotation.cutoffs.lowAalSince))
]

/** The session's user with their identities and factors, as a refresh reads them; null when gone. */
const AccountField = Schema.NullOr(Users.AccountJson)

type WithAccountRow = typeof Sessions.RowFields.Type & { readonly account: typeof AccountField.Type }

const withAccount = ({ account, ...session }: WithAccountRow) => ({
  session: Sessions.toSession(session),
  account: Option.map(Option.fromNullable(account), Users.toAccount)
})

export const RotatedRow = Schema.Struct({
  ...Sessions.RowFields.fields,
  position: Schema.NumberFromString,
  account: AccountField
})

/**
 * Each rotation's session as it left it, with its user, from `rotateText`'s rows; none for
 * those it did not rotate.
 */
export const rotatedOf = (
  rows: ReadonlyArray<typeof RotatedRow.Type>,
  rotations: ReadonlyArray<Rotation>
) => {
  const byPosition = new Map(rows.map(({ position, ...row }) => [position, withAccount(row)]))
  return rotations.map((_, i) => Option.fromNullable(byPosition.get(i + 1)))
}

/**
 * $1 presented digest: the token's session, locked, with the token's generation. A token's
 * session and generation never change, so reading them with the lock is as good as before.
 */
export const lockPresentedText = (name: Name) =>
  `SELECT ${Sessions.columnsOf("s")}, t.generation AS token_generation,
     ${Users.accountJsonOf(name, "s.user_id")} AS account
   FROM ${name("refresh_tokens")} t JOIN ${name("sessions")} s ON s.id = t.session_id
   WHERE t.token_hash = $1
   FOR UPDATE OF s`

/** A session locked for a refresh, with the generation of the token presented and its user. */
export const LockedRow = Schema.Struct({
  ...Sessions.RowFields.fields,
  tokenGeneration: Schema.Int,
  account: AccountField
})

/** A locked session with its user, from a row of `LockedRow`. */
export const lockedOf = ({ tokenGeneration, ...row }: typeof LockedRow.Type) => ({
  ...withAccount(row),
  generation: tokenGeneration
})

/** $1 presented digest: the child the token was retired into, sealed under it, if it keeps one. */
export const sealedChildText = (name: Name) =>
  `SELECT sealed_child FROM ${name("refresh_tokens")} WHERE token_hash = $1`

export const SealedRow = Schema.Struct({ sealedChild: Schema.NullOr(SealedSecret) })

/**
 * The tokens of the sessions `ended` (a subquery of `id` and `now`, one row per session) retired
 * at the session's `now`, their sealed children let go.
 */
export const letGoOfText = (name: Name, ended: string) =>
  `UPDATE ${name("refresh_tokens")} t SET revoked = true, sealed_child = NULL, updated_at = e.now
   FROM (${ended}) e
   WHERE t.session_id = e.id AND (NOT t.revoked OR t.sealed_child IS NOT NULL)`

/** $1 user, $2 now: the tokens of all their sessions retired, their sealed children let go. */
export const letGoOfUserText = (name: Name) =>
  `UPDATE ${name("refresh_tokens")} SET revoked = true, sealed_child = NULL, updated_at = $2
   WHERE session_id IN (SELECT id FROM ${name("sessions")} WHERE user_id = $1)
     AND (NOT revoked OR sealed_child IS NOT NULL)`

/**
 * One raise as `raiseCtes`'s `input`: $1 session, $2 aal, $3 factor, $4 amr, $5 generation, $6
 * now (`Sessions.raiseParameters`), $7 the new live token's digest, $8 user.
 */
export const raiseInputOfOne = `SELECT 1::bigint AS position, $1::uuid AS session_id, $2::text AS aal,
  $3::uuid AS factor_id, $4::text AS amr, $5::int AS generation, $6::timestamptz AS now,
  $7::text AS child, $8::uuid AS user_id`

/**
 * Factor verifies' raises, as CTEs for a statement to embed after its `input` relation (one row
 * per raise: `position`, `session_id`, the raised `aal`, `factor_id`, `amr` as JSON text and
 * `generation`, `now`, `child` the new live token's digest, `user_id`; no user twice). Each
 * session raised where `gate` (a condition on its row `s` and its input `i`, `AND …`) holds;
 * then, only for those, their tokens retired without sealed children, the new live token stored
 * with no parent (no earlier token leads to it), and their users' other live aal1 sessions ended
 * with their tokens let go (`Assurance.signedOutByVerify`). The users' live sessions must be
 * locked before, in id order (`Sessions.lockLiveOfSessionUserText`), so that `others` takes no
 * lock of its own out of order. `raised` returns each raise's `position`.
 */
export const raiseCtes = (name: Name, gate: string) =>
  `raised AS (
     UPDATE ${name("sessions")} s
     SET aal = i.aal, factor_id = i.factor_id, amr = i.amr::jsonb, generation = i.generation,
         refreshed_at = i.now, updated_at = i.now
     FROM input i
     WHERE s.id = i.session_id ${gate}
     RETURNING s.id, i.position, i.user_id, i.now, i.child, i.generation
   ),
   let_go AS (${letGoOfText(name, "SELECT id, now FROM raised")}),
   others AS (
     SELECT s.id, r.now FROM ${name("sessions")} s JOIN raised r ON r.user_id = s.user_id
     WHERE s.revoked_at IS NULL AND s.aal = 'aal1' AND s.id NOT IN (SELECT id FROM raised)
     ORDER BY s.id FOR UPDATE OF s
   ),
   signed_out AS (
     UPDATE ${name("sessions")} s SET revoked_at = o.now, updated_at = o.now FROM others o WHERE s.id = o.id
   ),
   others_let_go AS (${letGoOfText(name, "SELECT id, now FROM others")}),
   live AS (
     INSERT INTO ${name("refresh_tokens")} (token_hash, user_id, parent, session_id, generation, created_at, updated_at)
     SELECT child, user_id, NULL, id, generation, now, now FROM raised
   )`

/**
 * A factor verify's raise written in one statement (the session locked before by
 * `Sessions.lockLiveOfSessionUserText`), with `raiseInputOfOne`'s parameters, and the account
 * read as a refresh reads it.
 */
export const raiseText = (name: Name) =>
  `WITH input AS (${raiseInputOfOne}),
   ${raiseCtes(name, "")}
   SELECT ${Users.accountJsonOf(name, "$8")} AS account`

export const AccountRow = Schema.Struct({ account: AccountField })

/** The account of an `AccountRow`. */
export const accountOf = (row: typeof AccountRow.Type) =>
  Option.map(Option.fromNullable(row.account), Users.toAccount)

/**
 * $1 retired before, $2 at most: the retired tokens last changed before $1, for the reaper. The
 * `updated_at` index finds them, as Supabase Auth's cleanup finds its revoked tokens.
 */
export const retiredBatch = (name: Name): BatchedDelete.Batch => ({
  table: name("refresh_tokens"),
  key: "id",
  where: "candidate.revoked AND candidate.updated_at < $1",
  limit: "$2"
})
