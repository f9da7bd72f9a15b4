import { mkdirSync } from "node:fs"
import { PgClient } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect, Layer, Option, type Redacted, Schema, String as Str } from "effect"

export class EmbeddedDatabaseError extends Schema.TaggedError<EmbeddedDatabaseError>()(
  "EmbeddedDatabaseError",
  {
    message: Schema.String
  }
) {}

export interface DatabaseOptions {
  /** A Postgres URL; none → the embedded database. */
  readonly url: Option.Option<Redacted.Redacted>
  /** Where the embedded database keeps its files; none → in memory (tests). */
  readonly dataDir: Option.Option<string>
  /** Connections of the Postgres pool (ignored for the embedded database, which takes one). */
  readonly maxConnections?: number
}

/** Columns are snake_case in SQL and camelCase in rows, matching the domain's field names. */
const naming = { transformResultNames: Str.snakeToCamel, transformQueryNames: Str.camelToSnake }

/**
 * Starts PGlite and serves it on an ephemeral loopback port, so that the one Postgres adapter
 * speaks to it through the same `@effect/sql-pg` client as to a real server. PGlite runs a
 * single session: the pool must hold exactly one connection.
 */
const embedded = (dataDir: Option.Option<string>) =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          Option.match(dataDir, {
            onNone: () => PGlite.create(),
            onSome: (dir) => {
              mkdirSync(dir, { recursive: true })
              return PGlite.create(dir)
            }
          }),
        catch: (cause) =>
          new EmbeddedDatabaseError({
            message: `cannot open the embedded database${Option.match(dataDir, { onNone: () => "", onSome: (dir) => ` in ${dir}` })}: ${String(cause)}`
          })
      }),
      (db) => Effect.promise(() => db.close())
    )
    const server = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 1 })
          await server.start()
          return server
        },
        catch: (cause) =>
          new EmbeddedDatabaseError({ message: `cannot serve the embedded database: ${String(cause)}` })
      }),
      (server) => Effect.promise(() => server.stop())
    )
    const port = Number(server.getServerConn().split(":").pop())
    return PgClient.layer({
      host: "127.0.0.1",
      port,
      database: "postgres",
      username: "postgres",
      maxConnections: 1,
      ...naming
    })
  })

export const layer = (options: DatabaseOptions) =>
  Option.match(options.url, {
    onSome: (url) => PgClient.layer({ url, maxConnections: options.maxConnections ?? 10, ...naming }),
    onNone: () => Layer.unwrapScoped(embedded(options.dataDir))
  })
