import * as Context from "effect/Context"
import type Pg from "pg"

/**
 * The process's `pg` pool, the same one `@effect/sql` runs on (Database.ts). The statements of
 * both services' hot paths use it directly (Prepared.ts), by name where
 * `namedStatements` allows: a named statement lives on the server connection that prepared it,
 * which behind a pooler in transaction mode (PgBouncer, Supavisor) is another connection at
 * every transaction, so there they run unnamed.
 */
export interface StatementPool extends Pg.Pool {
  readonly namedStatements: boolean
}

export class PgPool extends Context.Tag("latchkey/PgPool")<PgPool, StatementPool>() {}
