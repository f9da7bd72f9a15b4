import * as Context from "effect/Context"
import type Pg from "pg"

/**
 * The process's `pg` pool, the same one `@effect/sql` runs on (Database.ts). Only the prepared
 * statements of the hot endpoints use it directly (Prepared.ts).
 */
export class PgPool extends Context.Tag("latchkey/PgPool")<PgPool, Pg.Pool>() {}
