import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ConsentStore } from "../../../application/oauth/ports/ConsentStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as PendingConsent from "../../../domain/oauth/PendingConsent.js"
import * as BatchedDelete from "../BatchedDelete.js"
import { decodeFirst } from "../Rows.js"

export const layer = Layer.effect(
  ConsentStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const encode = Schema.encodeSync(PendingConsent.PendingConsent)
    return {
      hasConsent: Telemetry.fn("ConsentStorePg.hasConsent")(
        (userId, clientId, scopes) =>
          sql`
          SELECT 1 FROM oauth.consents
          WHERE user_id = ${userId} AND client_id = ${clientId}
            AND scopes @> ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(scopes)}::jsonb))`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          ),
        (userId, clientId) => ({ "user.id": userId, "client.id": clientId })
      ),
      grant: Telemetry.fn("ConsentStorePg.grant")(
        (userId, clientId, scopes, now) =>
          sql`
          INSERT INTO oauth.consents (user_id, client_id, granted_at, scopes)
          VALUES (${userId}, ${clientId}, ${now},
                  ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(scopes)}::jsonb)))
          ON CONFLICT (user_id, client_id) DO UPDATE
          SET scopes = ARRAY(SELECT DISTINCT unnest(oauth.consents.scopes || excluded.scopes) ORDER BY 1)`.pipe(
            Effect.asVoid,
            Effect.orDie
          ),
        (userId, clientId) => ({ "user.id": userId, "client.id": clientId })
      ),
      park: Telemetry.fn("ConsentStorePg.park")(
        (pending) =>
          sql`INSERT INTO oauth.pending_consents ${sql.insert({ ...encode(pending) })}`.pipe(
            Effect.asVoid,
            Effect.orDie
          ),
        (pending) => ({ "client.id": pending.clientId })
      ),
      take: Telemetry.fn("ConsentStorePg.take")((tokenHash, now) =>
        sql`
          DELETE FROM oauth.pending_consents WHERE token_hash = ${tokenHash}
          RETURNING token_hash, user_id, client_id, redirect_uri, code_challenge, client_state, scope, resource,
                    created_at, expires_at`.pipe(
          decodeFirst(PendingConsent.PendingConsent),
          Effect.map(Option.filter((pending) => !PendingConsent.isExpired(pending, now)))
        )
      ),
      purge: Telemetry.fn("ConsentStorePg.purge")((now, limit) =>
        BatchedDelete.count(
          sql,
          {
            table: "oauth.pending_consents",
            key: "token_hash",
            where: "candidate.expires_at <= $1",
            limit: "$2"
          },
          [now, limit]
        )
      )
    }
  })
)
