import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AuthorizationCodeStore } from "../../../application/oauth/ports/AuthorizationCodeStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as AuthorizationCode from "../../../domain/oauth/AuthorizationCode.js"
import * as Lifetimes from "../../../domain/oauth/Lifetimes.js"
import * as Time from "../../../domain/Time.js"
import * as BatchedDelete from "../BatchedDelete.js"
import { decodeFirst } from "../Rows.js"

const ConsumedRow = Schema.Struct({
  ...AuthorizationCode.AuthorizationCode.fields,
  wasConsumed: Schema.Boolean
})

export const layer = Layer.effect(
  AuthorizationCodeStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const encode = Schema.encodeSync(AuthorizationCode.AuthorizationCode)

    return {
      issue: Telemetry.fn("AuthorizationCodeStorePg.issue")(
        (code) => {
          const row = encode(code)
          return sql`
          INSERT INTO oauth.authorization_codes ${sql.insert({
            codeHash: row.hash,
            grantId: row.grantId,
            clientId: row.clientId,
            userId: row.userId,
            redirectUri: row.redirectUri,
            codeChallenge: row.codeChallenge,
            scope: row.scope,
            resource: row.resource,
            issuedAt: row.issuedAt,
            expiresAt: row.expiresAt,
            consumedAt: row.consumedAt
          })}`.pipe(Effect.asVoid, Effect.orDie)
        },
        (code) => ({ "client.id": code.clientId })
      ),
      // One statement: the row lock taken by FOR UPDATE makes concurrent redemptions queue,
      // and each one after the first re-reads the row and finds it consumed.
      consume: Telemetry.fn("AuthorizationCodeStorePg.consume")((hash, now) =>
        sql`
          WITH previous AS (
            SELECT * FROM oauth.authorization_codes WHERE code_hash = ${hash} FOR UPDATE
          ), consumed AS (
            UPDATE oauth.authorization_codes c SET consumed_at = ${now}
            FROM previous
            WHERE c.code_hash = previous.code_hash AND previous.consumed_at IS NULL
            RETURNING c.code_hash
          )
          SELECT p.code_hash AS hash, p.grant_id, p.client_id, p.user_id, p.redirect_uri, p.code_challenge,
                 p.scope, p.resource, p.issued_at, p.expires_at,
                 coalesce(p.consumed_at, ${now}) AS consumed_at,
                 p.consumed_at IS NOT NULL AS was_consumed
          FROM previous p`.pipe(
          decodeFirst(ConsumedRow),
          Effect.map(
            Option.map(({ wasConsumed, ...code }) => ({
              code: new AuthorizationCode.AuthorizationCode(code),
              wasConsumed
            }))
          )
        )
      ),
      purge: Telemetry.fn("AuthorizationCodeStorePg.purge")((now, limit) =>
        BatchedDelete.count(
          sql,
          {
            table: "oauth.authorization_codes",
            key: "code_hash",
            where: "candidate.expires_at <= $1",
            limit: "$2"
          },
          [Time.minus(now, Lifetimes.replayEvidence), limit]
        )
      )
    }
  })
)
