import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { UsedAssertions } from "../../../application/oauth/ports/UsedAssertions.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as BatchedDelete from "../BatchedDelete.js"

export const layer = Layer.effect(
  UsedAssertions,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      // One statement: of two requests with one assertion, the primary key lets one insert.
      record: Telemetry.fn("UsedAssertionsPg.record")(
        (clientId, jtiHash, until) =>
          sql`
          INSERT INTO oauth.used_assertions (client_id, jti_hash, expires_at)
          VALUES (${clientId}, ${jtiHash}, ${until})
          ON CONFLICT (client_id, jti_hash) DO NOTHING
          RETURNING 1`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          ),
        (clientId) => ({ "client.id": clientId })
      ),
      purge: Telemetry.fn("UsedAssertionsPg.purge")((now, limit) =>
        BatchedDelete.count(
          sql,
          // The key is two columns; the row's physical address names it within one statement.
          { table: "oauth.used_assertions", key: "ctid", where: "candidate.expires_at <= $1", limit: "$2" },
          [now, limit]
        )
      )
    }
  })
)
