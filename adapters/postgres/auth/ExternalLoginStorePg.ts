import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ExternalLoginStore } from "../../../application/auth/ports/ExternalLoginStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import { ExternalLogin } from "../../../domain/auth/ExternalLogin.js"
import * as Time from "../../../domain/Time.js"
import { decodeFirst } from "../Rows.js"
import { AuthTables } from "./AuthTables.js"

/**
 * Sign-ins on their way on Postgres. A take deletes the row with `RETURNING`, so a state is
 * used once however many callbacks carry it at the same moment. Each new sign-in also deletes
 * a few rows expired for a while: abandoned sign-ins do not pile up, and no job is needed.
 */
export const layer = Layer.effect(
  ExternalLoginStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* AuthTables
    const logins = sql(tables.name("external_logins"))
    const encode = Schema.encodeSync(ExternalLogin)
    return {
      put: Telemetry.fn("ExternalLoginStorePg.put")((login) =>
        Effect.gen(function* () {
          yield* sql`INSERT INTO ${logins} ${sql.insert(encode(login))}`
          yield* sql`
            DELETE FROM ${logins} WHERE state_hash IN (
              SELECT state_hash FROM ${logins} WHERE expires_at < ${Time.minus(login.createdAt, 60_000)}
              LIMIT 100)`
        }).pipe(Effect.orDie)
      ),
      take: Telemetry.fn("ExternalLoginStorePg.take")((stateHash, now) =>
        sql`DELETE FROM ${logins} WHERE state_hash = ${stateHash} RETURNING *`.pipe(
          decodeFirst(ExternalLogin),
          Effect.map(Option.filter((login) => !Time.isAtOrAfter(now, login.expiresAt)))
        )
      )
    }
  })
)
