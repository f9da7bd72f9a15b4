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
export type Service = "oauth"

const directoryOf = (service: Service) => fileURLToPath(new URL(`./migrations/${service}`, import.meta.url))

const fileName = /^(\d+)_([a-z0-9_]+)\.sql$/

/** Versioned SQL files `NNNN_name.sql`, applied in order, each in the migrator's transaction. */
const loader = (service: Service): Migrator.Loader<FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const directory = directoryOf(service)
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
          Effect.succeed(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text)))
        ]
      )
    )
  }).pipe(
    Effect.mapError((error) => new Migrator.MigrationError({ reason: "failed", message: error.message }))
  )

const table = (service: Service) => `${service}.schema_migrations`

/** Applies every migration not yet applied; safe to run from several instances at once. */
export const run = Telemetry.fn("Migrations.run")(
  (service: Service) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${service}`)
      return yield* Migrator.make({})({ loader: loader(service), table: table(service) })
    }),
  (service) => ({ service })
)

export class SchemaStatus extends Schema.Class<SchemaStatus>("SchemaStatus")({
  applied: Schema.Number,
  expected: Schema.Number
}) {}

/** The latest migration applied to the database and the latest this code knows. */
export const status = (service: Service) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const migrations = yield* loader(service)
    const expected = Math.max(0, ...migrations.map(([id]) => id))
    const exists = yield* sql<{
      readonly exists: boolean
    }>`SELECT to_regclass(${table(service)}) IS NOT NULL AS exists`
    if (exists[0]?.exists !== true) return new SchemaStatus({ applied: 0, expected })
    const rows = yield* sql<{
      readonly latest: number | null
    }>`SELECT max(migration_id) AS latest FROM ${sql(table(service))}`
    return new SchemaStatus({ applied: rows[0]?.latest ?? 0, expected })
  })
