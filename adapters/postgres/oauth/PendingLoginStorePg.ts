import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { PendingLoginStore } from "../../../application/oauth/ports/PendingLoginStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as PendingLogin from "../../../domain/oauth/PendingLogin.js"
import * as BatchedDelete from "../BatchedDelete.js"
import { decodeFirst } from "../Rows.js"

export const layer = Layer.effect(
  PendingLoginStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const encode = Schema.encodeSync(PendingLogin.PendingLogin)

    return {
      put: Telemetry.fn("PendingLoginStorePg.put")(
        (pending) =>
          sql`INSERT INTO oauth.pending_logins ${sql.insert({ ...encode(pending) })}`.pipe(
            Effect.asVoid,
            Effect.orDie
          ),
        (pending) => ({ "client.id": pending.clientId })
      ),
      // DELETE … RETURNING is the single-use guarantee: only one statement can delete the row.
      take: Telemetry.fn("PendingLoginStorePg.take")((stateHash, now) =>
        sql`
          DELETE FROM oauth.pending_logins WHERE state_hash = ${stateHash}
          RETURNING state_hash, client_id, redirect_uri, code_challenge, client_state, scope, resource,
                    created_at, expires_at`.pipe(
          decodeFirst(PendingLogin.PendingLogin),
          Effect.map(Option.filter((pending) => !PendingLogin.isExpired(pending, now)))
        )
      ),
      purge: Telemetry.fn("PendingLoginStorePg.purge")((now, limit) =>
        BatchedDelete.count(
          sql,
          {
            table: "oauth.pending_logins",
            key: "state_hash",
            where: "candidate.expires_at <= $1",
            limit: "$2"
          },
          [now, limit]
        )
      )
    }
  })
)
