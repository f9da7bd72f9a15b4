import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { DatabaseProbe } from "../../application/ports/DatabaseProbe.js"
import * as Telemetry from "../../application/Telemetry.js"

/**
 * `SELECT 1` on a connection of the pool: it takes the same way as every request's statements
 * (the pool, a connection opened if none is idle, the server's answer), so a database that
 * cannot serve a request cannot pass it either. An unnamed statement: a pooler in transaction
 * mode takes it as it comes.
 */
export const layer = Layer.effect(
  DatabaseProbe,
  Effect.map(SqlClient.SqlClient, (sql) => ({
    ping: Telemetry.fn("DatabaseProbePg.ping")(() =>
      sql`SELECT 1`.pipe(Effect.asVoid, Effect.catchTag("SqlError", Effect.die))
    )()
  }))
)
