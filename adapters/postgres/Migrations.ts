import { fileURLToPath } from "node:url"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Telemetry from "../../application/Telemetry.js"

/** Each service keeps its tables in a Postgres schema of its own name. */
export type Service = "oauth" | "auth"

/**
 * Where a service's migrations go: its schema, and a prefix for every table name in it (the
 * auth service's `DB_NAMESPACE`, as `<namespace>_`; empty otherwise). Migration files write
 * their tables as `auth.{{prefix}}users`; the prefix is checked to be a plain identifier part
 * before it is put into SQL.
 */
export interface Target {
  readonly service: Service
  readonly tablePrefix: string
}

const targetOf = (target: Service | Target): Target =>
  typeof target === "string" ? { service: target, tablePrefix: "" } : target

const identifierPart = /^[a-z_][a-z0-9_]*$/

export class InvalidTablePrefix extends Schema.TaggedError<InvalidTablePrefix>()("InvalidTablePrefix", {
  prefix: Schema.String
}) {}

const checkedPrefix = (prefix: string) =>
  prefix === "" || identifierPart.test(prefix)
    ? Effect.succeed(prefix)
    : Effect.die(new InvalidTablePrefix({ prefix }))

const directoryOf = (service: Service) => fileURLToPath(new URL(`./migrations/${service}`, import.meta.url))

const fileName = /^(\d+)_([a-z0-9_]+)\.sql$/

/** Versioned SQL files `NNNN_name.sql`, applied in order, each in the migrator's transaction. */
const loader = (target: Target): Migrator.Loader<FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const directory = directoryOf(target.service)
    const prefix = yield* checkedPrefix(target.tablePrefix)
    const files = yield* fs.readDirectory(directory)
    const migrations = Arr.filterMap(files, (file) =>
      Option.map(Option.fromNullable(fileName.exec(file)), ([, id, name]) => ({
        file,
        id: Number(id),
        name: String(name)
      }))
    ).sort((a, b) => a.id - b.id)
    return yield* Effect.forEach(migrations, ({ file, id, name }) =>
      Effect.map(
        fs.readFileString(`${directory}/${file}`),
        (text): Migrator.ResolvedMigration => [
          id,
          name,
          // The migrator expects a loader of the migration, which is an effect itself.
          // No parameters: the text runs as one simple-protocol query, many statements allowed.
          Effect.succeed(
            Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text.replaceAll("{{prefix}}", prefix)))
          )
        ]
      )
    )
  }).pipe(
    Effect.mapError((error) => new Migrator.MigrationError({ reason: "failed", message: error.message }))
  )

const table = (target: Target) => `${target.service}.${target.tablePrefix}schema_migrations`

/**
 * Applies every migration not yet applied. Instances that start together on one database all
 * come up: the first takes a transaction-scoped advisory lock (one per schema and prefix) and
 * migrates; the others wait for it, then find nothing left to do. Without the lock, two first
 * starts race on creating the schema and the migrations table.
 */
export const run = Telemetry.fn("Migrations.run")(
  (service: Service | Target) =>
    Effect.gen(function* () {
      const target = targetOf(service)
      const sql = yield* SqlClient.SqlClient
      yield* checkedPrefix(target.tablePrefix)
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`latchkey.migrations.${target.service}.${target.tablePrefix}`}))`
          yield* sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${target.service}`)
          // The migrator probes for its table with a statement that fails when the table is
          // missing, which would abort this transaction: the table is created here first, as
          // the migrator itself would create it.
          yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${table(target)} (
            migration_id integer primary key,
            created_at timestamp with time zone not null default now(),
            name text not null
          )`)
          return yield* Migrator.make({})({ loader: loader(target), table: table(target) })
        })
      )
    }),
  (service) => ({ service: targetOf(service).service })
)

export class SchemaStatus extends Schema.Class<SchemaStatus>("SchemaStatus")({
  applied: Schema.Number,
  expected: Schema.Number
}) {}

/** The latest migration applied to the database and the latest this code knows. */
export const status = (service: Service | Target) =>
  Effect.gen(function* () {
    const target = targetOf(service)
    const sql = yield* SqlClient.SqlClient
    const migrations = yield* loader(target)
    const expected = Math.max(0, ...migrations.map(([id]) => id))
    const exists = yield* sql<{
      readonly exists: boolean
    }>`SELECT to_regclass(${table(target)}) IS NOT NULL AS exists`
    if (exists[0]?.exists !== true) return new SchemaStatus({ applied: 0, expected })
    const rows = yield* sql<{
      readonly latest: number | null
    }>`SELECT max(migration_id) AS latest FROM ${sql(table(target))}`
    return new SchemaStatus({ applied: rows[0]?.latest ?? 0, expected })
  })

export class SchemaNotReady extends Schema.TaggedError<SchemaNotReady>()("SchemaNotReady", {
  message: Schema.String
}) {}

/**
 * Refuses to go on with a schema that is missing or older than this build's, in one line that
 * names the command that applies it: what the oauth service checks before it serves, and every
 * operator command before it reads a table.
 */
export const ensureCurrent = (service: Service | Target) =>
  Effect.gen(function* () {
    const target = targetOf(service)
    const current = yield* status(target)
    if (current.applied >= current.expected) return
    const command = `latchkey ${target.service} migrate`
    return yield* new SchemaNotReady({
      message:
        current.applied === 0
          ? `the ${target.service} schema is missing: run \`${command}\` first`
          : `the ${target.service} schema is at version ${current.applied}, this build needs ${current.expected}: run \`${command}\``
    })
  })
