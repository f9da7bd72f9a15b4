import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type RotateRequest, type Rotation, TokenStore } from "../../../application/oauth/ports/TokenStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import type { FamilyId, SecretHash } from "../../../domain/Ids.js"
import * as AccessToken from "../../../domain/oauth/AccessToken.js"
import * as RefreshTokenFamily from "../../../domain/RefreshTokenFamily.js"
import * as Time from "../../../domain/Time.js"
import * as BatchedDelete from "../BatchedDelete.js"
import { PgPool } from "../PgPool.js"
import * as Prepared from "../Prepared.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import * as SharedStatements from "../SharedStatements.js"

const RefreshRow = Schema.Struct({ ...RefreshTokenFamily.Family.fields, tokenGeneration: Schema.Int })
const Counts = Schema.Struct({ accessTokens: Schema.NumberFromString, families: Schema.NumberFromString })
/** $1 hashes: introspections arriving together share this one look-up (SharedStatements.ts). */
const findAccessStatement = Prepared.statement(
  "find_access_tokens",
  `SELECT token_hash AS hash, user_id, client_id, grant_id, family_id, scope, resource, issued_at,
          expires_at, revoked_at
   FROM oauth.user_tokens WHERE token_hash = ANY($1::text[])`
)

const findRefreshStatement = Prepared.statement(
  "find_refresh_token",
  `SELECT f.*, t.generation AS token_generation
   FROM oauth.refresh_tokens t JOIN oauth.refresh_token_families f ON f.id = t.family_id
   WHERE t.token_hash = $1`
)

/**
 * The happy path of a refresh is this one statement and one round trip, shared by the refreshes
 * arriving together (SharedStatements.ts): the conditional UPDATE is the `Rotate` branch of
 * `RefreshTokenFamily.decide`; the row lock it takes serialises concurrent presentations, and
 * every one after the first no longer matches — also within one batch, where PostgreSQL updates
 * a family once whichever of its presentations it joined. Each input is one element of the
 * arrays: $1 presented hash, $2 now, $3 new expiry (null: none), $4 binds the client,
 * $5 presenter, $6 child hash, $7 access hash, $8 access expiry; `position` says which input a
 * returned family answers.
 */
const rotateStatement = Prepared.statement(
  "rotate_refresh_tokens",
  `WITH input AS (
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::boolean[], $5::text[],
                          $6::text[], $7::text[], $8::timestamptz[])
       WITH ORDINALITY AS i(presented, now, expires_at, binds_client, presenter, child_hash,
                            access_hash, access_expires_at, position)
   ), presented AS (
     SELECT i.*, t.family_id, t.generation
     FROM input i JOIN oauth.refresh_tokens t ON t.token_hash = i.presented
   ), family AS (
     UPDATE oauth.refresh_token_families f
     SET generation = f.generation + 1, rotated_at = p.now, expires_at = p.expires_at
     FROM presented p
     WHERE f.id = p.family_id
       AND f.generation = p.generation
       AND f.revoked_at IS NULL
       AND (f.expires_at IS NULL OR f.expires_at > p.now)
       AND (NOT p.binds_client OR f.client_id = p.presenter)
     RETURNING f.*, p.position, p.now AS presented_at, p.presenter, p.child_hash, p.access_hash,
               p.access_expires_at
   ), child AS (
     INSERT INTO oauth.refresh_tokens (token_hash, family_id, generation, issued_at)
     SELECT child_hash, id, generation, presented_at FROM family
   ), access AS (
     INSERT INTO oauth.user_tokens
       (token_hash, user_id, client_id, grant_id, family_id, scope, resource, issued_at, expires_at)
     SELECT access_hash, user_id, presenter, grant_id, id, scope, resource, presented_at,
            access_expires_at
     FROM family
   )
   SELECT id, user_id, client_id, grant_id, scope, resource, generation, rotated_at, expires_at,
          revoked_at, created_at, position::integer AS position
   FROM family`
)

const RotatedRow = Schema.Struct({ ...RefreshTokenFamily.Family.fields, position: Schema.Int })

export const layer = Layer.effect(
  TokenStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* PgPool
    const encodeToken = Schema.encodeSync(AccessToken.AccessToken)
    const encodeFamily = Schema.encodeSync(RefreshTokenFamily.Family)

    const findAccess = yield* SharedStatements.lookup({
      sql,
      pool,
      statement: findAccessStatement,
      row: AccessToken.AccessToken,
      keyOf: (token): SecretHash => token.hash
    })

    const findRefresh = (hash: SecretHash) =>
      Prepared.run(pool, findRefreshStatement, [hash]).pipe(
        decodeFirst(RefreshRow),
        Effect.map(
          Option.map(({ tokenGeneration, ...family }) => ({
            family: new RefreshTokenFamily.Family(family),
            generation: tokenGeneration
          }))
        )
      )

    // Access tokens minted with the family die with it: RFC 7009 §2.1 and RFC 9700 §4.14.2.
    // Two statements in one transaction, not one statement: a rotation in flight holds the
    // family's row until it commits, so the first UPDATE waits for it, but a statement sees
    // only the rows of the snapshot it started with, which lacks the access token that rotation
    // minted. The second statement starts after the wait and sees it; a rotation that comes
    // later waits for this transaction and then finds the family revoked.
    const revokeFamily = (id: FamilyId, now: Date) =>
      Effect.gen(function* () {
        const revoked = yield* sql`
          UPDATE oauth.refresh_token_families SET revoked_at = ${now}
          WHERE id = ${id} AND revoked_at IS NULL
          RETURNING id`
        if (revoked.length === 0) return false
        yield* sql`
          UPDATE oauth.user_tokens SET revoked_at = ${now}
          WHERE family_id = ${id} AND revoked_at IS NULL`
        return true
      }).pipe(sql.withTransaction, Effect.orDie)

    const rotateRow = (request: RotateRequest) =>
      [
        request.presented,
        request.now,
        Option.getOrNull(
          Option.map(request.policy.slidingLifetime, (lifetime) => Time.plus(request.now, lifetime))
        ),
        request.policy.bindsClient,
        request.presenter,
        request.childHash,
        request.accessHash,
        request.accessExpiresAt
      ] as const

    const tryRotate = yield* SharedStatements.make({
      sql,
      pool,
      statement: rotateStatement,
      parameters: (requests: ReadonlyArray<RotateRequest>) => {
        const rows = requests.map(rotateRow)
        // One array per parameter ($1…$8); element i of each belongs to request i.
        return rows[0]?.map((_, column) => rows.map((row) => row[column])) ?? []
      },
      row: RotatedRow,
      answers: (rotated, requests) => {
        const byPosition = new Map(rotated.map(({ position, ...family }) => [position, family]))
        return requests.map((_, i) =>
          Option.map(
            Option.fromNullable(byPosition.get(i + 1)),
            // Decoded by RotatedRow already: no second validation.
            (family) => new RefreshTokenFamily.Family(family, true)
          )
        )
      }
    })

    const rotate = (request: RotateRequest, attempt: number): Effect.Effect<Rotation> =>
      Effect.gen(function* () {
        const rotated = yield* tryRotate(request)
        if (Option.isSome(rotated)) {
          const family = rotated.value
          return {
            _tag: "Decided",
            decision: RefreshTokenFamily.Decision.Rotate({
              generation: family.generation,
              expiresAt: family.expiresAt
            }),
            family
          }
        }
        // Not rotated: let the domain say why, from the state as it is now.
        const state = yield* findRefresh(request.presented)
        if (Option.isNone(state)) return { _tag: "UnknownToken" }
        const { family, generation } = state.value
        const decision = RefreshTokenFamily.decide(
          request.policy,
          family,
          { generation, clientId: Option.some(request.presenter) },
          request.now
        )
        if (decision._tag === "Rotate") {
          // The state moves only forward, so a token that did not rotate cannot be live now;
          // one retry absorbs a clock edge, a second disagreement is a bug.
          if (attempt > 0)
            return yield* Effect.dieMessage("refresh rotation disagrees with the domain policy")
          return yield* rotate(request, attempt + 1)
        }
        if (decision._tag === "ReuseDetected") {
          yield* revokeFamily(family.id, request.now)
          return { _tag: "Decided", decision, family: RefreshTokenFamily.revoke(family, request.now) }
        }
        return { _tag: "Decided", decision, family }
      })

    return {
      issue: Telemetry.fn("TokenStorePg.issue")(
        ({ access, refresh }) =>
          Effect.gen(function* () {
            const token = encodeToken(access)
            yield* Option.match(refresh, {
              onNone: () => Effect.void,
              onSome: ({ family, tokenHash }) => {
                const row = encodeFamily(family)
                return Effect.zipRight(
                  sql`INSERT INTO oauth.refresh_token_families ${sql.insert({ ...row })}`,
                  sql`INSERT INTO oauth.refresh_tokens ${sql.insert({
                    tokenHash,
                    familyId: row.id,
                    generation: row.generation,
                    issuedAt: row.createdAt
                  })}`
                )
              }
            })
            const { hash, ...rest } = token
            yield* sql`INSERT INTO oauth.user_tokens ${sql.insert({ tokenHash: hash, ...rest })}`
          }).pipe(sql.withTransaction, Effect.orDie),
        ({ access }) => ({ "client.id": access.clientId })
      ),
      findAccess: Telemetry.fn("TokenStorePg.findAccess")((hash) => findAccess(hash)),
      findRefresh: Telemetry.fn("TokenStorePg.findRefresh")((hash) => findRefresh(hash)),
      rotate: Telemetry.fn("TokenStorePg.rotate")(
        (request) => rotate(request, 0),
        (request) => ({ "client.id": request.presenter })
      ),
      revokeAccess: Telemetry.fn("TokenStorePg.revokeAccess")((hash, now) =>
        sql`
          UPDATE oauth.user_tokens SET revoked_at = ${now}
          WHERE token_hash = ${hash} AND revoked_at IS NULL
          RETURNING token_hash`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
      ),
      revokeFamily: Telemetry.fn("TokenStorePg.revokeFamily")(
        (id, now) => revokeFamily(id, now),
        (id) => ({ "family.id": id })
      ),
      // Families first, then access tokens in a statement of its own, as in revokeFamily: the
      // second sees the access tokens of rotations the first waited for.
      revokeGrant: Telemetry.fn("TokenStorePg.revokeGrant")(
        (grantId, now) =>
          Effect.gen(function* () {
            const families = yield* sql`
            UPDATE oauth.refresh_token_families SET revoked_at = ${now}
            WHERE grant_id = ${grantId} AND revoked_at IS NULL
            RETURNING id`
            const access = yield* sql`
            UPDATE oauth.user_tokens SET revoked_at = ${now}
            WHERE (grant_id = ${grantId}
                   OR family_id IN (SELECT id FROM oauth.refresh_token_families WHERE grant_id = ${grantId}))
              AND revoked_at IS NULL
            RETURNING token_hash`
            return access.length + families.length
          }).pipe(sql.withTransaction, Effect.orDie),
        (grantId) => ({ "grant.id": grantId })
      ),
      purge: Telemetry.fn("TokenStorePg.purge")((now, limit) =>
        sql
          .unsafe(
            `WITH access AS (${BatchedDelete.deleteText({
              table: "oauth.user_tokens",
              key: "token_hash",
              where: "candidate.expires_at <= $1 OR candidate.revoked_at IS NOT NULL",
              limit: "$2"
            })} RETURNING 1), families AS (${BatchedDelete.deleteText({
              table: "oauth.refresh_token_families",
              key: "id",
              where: "candidate.revoked_at IS NOT NULL OR candidate.expires_at <= $1",
              limit: "$2"
            })} RETURNING 1)
            SELECT (SELECT count(*) FROM access)::text AS access_tokens,
                   (SELECT count(*) FROM families)::text AS families`,
            [now, limit]
          )
          .pipe(
            decodeAll(Counts),
            Effect.map((rows) => ({
              accessTokens: rows[0]?.accessTokens ?? 0,
              families: rows[0]?.families ?? 0
            }))
          )
      )
    }
  })
)
