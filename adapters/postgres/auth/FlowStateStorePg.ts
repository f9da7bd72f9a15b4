import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { FlowStateStore } from "../../../application/auth/ports/FlowStateStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import { FlowState } from "../../../domain/auth/FlowState.js"
import * as BatchedDelete from "../BatchedDelete.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import { AuthTables } from "./AuthTables.js"

const IdRow = Schema.Struct({ id: Schema.String })

/**
 * Flow states on Postgres. Taking a flow by its code deletes it with `RETURNING`, so a code is
 * exchanged once however many try at the same moment.
 */
export const layer = Layer.effect(
  FlowStateStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* AuthTables
    const flows = sql(tables.name("flow_states"))
    const encode = Schema.encodeSync(FlowState)
    return {
      create: Telemetry.fn("FlowStateStorePg.create")((flow) =>
        sql`INSERT INTO ${flows} ${sql.insert(encode(flow))}`.pipe(Effect.asVoid, Effect.orDie)
      ),
      issueCode: Telemetry.fn("FlowStateStorePg.issueCode")((id, codeHash, now) =>
        sql`
          UPDATE ${flows} SET auth_code_hash = ${codeHash}, auth_code_issued_at = ${now}
          WHERE id = ${id} RETURNING id`.pipe(
          decodeAll(IdRow),
          Effect.map((rows) => rows.length > 0)
        )
      ),
      takeByCode: Telemetry.fn("FlowStateStorePg.takeByCode")((codeHash) =>
        sql`DELETE FROM ${flows} WHERE auth_code_hash = ${codeHash} RETURNING *`.pipe(decodeFirst(FlowState))
      ),
      // By the `created_at` index; a mailed link's reference to the flow is set to null.
      purge: Telemetry.fn("FlowStateStorePg.purge")((createdBefore, limit) =>
        BatchedDelete.count(
          sql,
          { table: tables.name("flow_states"), key: "id", where: "candidate.created_at < $1", limit: "$2" },
          [createdBefore, limit]
        )
      )
    }
  })
)
