import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { JobLock } from "../../application/ports/JobLock.js"
import * as JobLockMemory from "../memory/JobLockMemory.js"
import { decodeFirst } from "./Rows.js"

const Acquired = Schema.Struct({ acquired: Schema.Boolean })

/**
 * A transaction-scoped advisory lock: the job runs inside the transaction that holds it, on
 * the same connection, and the lock is released at commit or rollback, even if the instance
 * dies. Another instance's try-lock fails at once and it skips the run. Names are taken within
 * `scope` (the tables' prefix, `DB_NAMESPACE`): deployments that share a database under
 * different namespaces reap their own tables and must not skip each other's turns.
 */
export const layerScoped = (scope: string) =>
  Layer.effect(
    JobLock,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return {
        runExclusive: (name, job) =>
          Effect.gen(function* () {
            const lock =
              yield* sql`SELECT pg_try_advisory_xact_lock(hashtext(${scope + name})) AS acquired`.pipe(
                decodeFirst(Acquired)
              )
            if (!Option.exists(lock, (row) => row.acquired)) return Option.none()
            return Option.some(yield* job)
          }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      }
    })
  )

/** Names as they are: the oauth service's jobs, whose tables take no prefix. */
export const layer = layerScoped("")

/**
 * The embedded database serves a single connection: a job holding it in a transaction would
 * block every other query, and only one process can open its data folder anyway.
 */
export const layerFor = (embedded: boolean, scope = "") =>
  embedded ? JobLockMemory.layer : layerScoped(scope)
