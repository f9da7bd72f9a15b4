import { randomUUID } from "node:crypto"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import pg from "pg"
import { inject } from "vitest"
import * as AuthTables from "../../adapters/postgres/auth/AuthTables.js"
import * as Database from "../../adapters/postgres/Database.js"
import * as Migrations from "../../adapters/postgres/Migrations.js"
import type { PgPool } from "../../adapters/postgres/PgPool.js"

/** Which PostgreSQL the "server" target talks to in this run (see globalSetup.ts). */
export const serverSource = (): string => inject("postgresSource")

/** Creates a database of its own on the test server and drops it when the scope closes. */
const createDatabase = (adminUrl: string) =>
  Effect.gen(function* () {
    const name = `latchkey_test_${randomUUID().replaceAll("-", "")}`
    const admin = yield* PgClient.make({ url: Redacted.make(adminUrl), maxConnections: 1 })
    yield* admin.unsafe(`CREATE DATABASE ${name}`)
    yield* Effect.addFinalizer(() =>
      admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.orDie)
    )
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    return url.toString()
  }).pipe(Effect.provide(Reactivity.layer), Effect.orDie)

/** A database of its own on the test server for one test file, dropped at the end. */
const serverDatabase = (adminUrl: string) =>
  Layer.unwrapScoped(
    Effect.map(createDatabase(adminUrl), (url) =>
      Database.layer({ url: Option.some(Redacted.make(url)), dataDir: Option.none() })
    )
  )

/** The URL of a fresh database on the run's server, or none when the run has no server. */
export const freshUrl = () => {
  const url = inject("postgresUrl")
  return url === null ? Effect.succeedNone : Effect.map(createDatabase(url), Option.some)
}

const embedded = () => Database.layer({ url: Option.none(), dataDir: Option.none() })

const migrated = <E>(
  database: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | PgPool, E>,
  targets: ReadonlyArray<Migrations.Service | Migrations.Target> = ["oauth"]
) =>
  Layer.provideMerge(
    Layer.effectDiscard(Effect.forEach(targets, Migrations.run, { discard: true })).pipe(
      Layer.provide(NodeFileSystem.layer)
    ),
    database
  ).pipe(Layer.orDie)

export type Target = "pglite" | "server"

/**
 * A fresh, migrated oauth database. `pglite`: embedded PGlite in memory, through the socket
 * server as in production. `server`: the run's PostgreSQL, or PGlite when there is none.
 */
export const layer = (target: Target) => {
  const url = inject("postgresUrl")
  return migrated(target === "server" && url !== null ? serverDatabase(url) : embedded())
}

/**
 * A fresh database with the auth service's tables, once per `DB_NAMESPACE` given (the empty
 * one: no prefix), side by side in the `auth` schema, and the `AuthTables` of the first.
 */
export const authLayer = (target: Target, namespaces: ReadonlyArray<string> = [""]) => {
  const url = inject("postgresUrl")
  const database = target === "server" && url !== null ? serverDatabase(url) : embedded()
  return Layer.merge(
    migrated(database, namespaces.map(AuthTables.migrationTarget)),
    AuthTables.layer(namespaces[0] ?? "")
  )
}

export const describeTarget = (target: Target): string =>
  target === "pglite" ? "embedded PGlite" : serverSource()

/** Whether the target ends up on embedded PGlite (single connection, single process). */
export const isEmbedded = (target: Target): boolean => target === "pglite" || inject("postgresUrl") === null

const LockWaits = Schema.Struct({ waiting: Schema.Number })

/**
 * Waits until `count` sessions of this database wait on a lock (one unless given), or `fiber`
 * has ended: how a test knows that a statement it started is queued behind a transaction it
 * holds open, without guessing how long that takes. Needs a server: the embedded database has a
 * single connection.
 */
export const lockWaitOrEnd = <A, E>(fiber: Fiber.Fiber<A, E>, count = 1) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const waiting = sql`
      SELECT count(*)::int AS waiting FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(LockWaits))),
      Effect.map((rows) => (rows[0]?.waiting ?? 0) >= count),
      Effect.orDie
    )
    const settled = Effect.gen(function* () {
      if (Option.isSome(yield* Fiber.poll(fiber))) return true
      return yield* waiting
    })
    // Polled on the wall clock: under a test's TestClock a scheduled pause would never end.
    const pause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 5)))
    while (!(yield* settled)) yield* pause
  })

/**
 * Holds the rows `lock` (a locking statement, with `parameters`) locks, in a transaction of its
 * own, and returns once they are held: the effect it returns runs `beforeCommit` in that
 * transaction, commits and waits for the commit. How a test queues statements behind rows it
 * holds, then lets them go.
 */
export const holdingRows = (
  lock: string,
  parameters: ReadonlyArray<unknown>,
  beforeCommit: Effect.Effect<unknown, unknown, SqlClient.SqlClient> = Effect.void
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const holding = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const holder = yield* Effect.fork(
      Effect.gen(function* () {
        yield* sql.unsafe(lock, [...parameters])
        yield* Deferred.succeed(holding, undefined)
        yield* Deferred.await(release)
        yield* beforeCommit
      }).pipe(sql.withTransaction, Effect.orDie)
    )
    yield* Deferred.await(holding)
    return Effect.zipRight(Deferred.succeed(release, undefined), Fiber.join(holder))
  })

/**
 * Runs a statement on the database at `url` over a connection of its own, closed afterwards:
 * for end-to-end tests that set up or read rows beside the service they started.
 */
export const query = (url: string, text: string, values: ReadonlyArray<unknown> = []) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return (await client.query(text, [...values])).rows
    } finally {
      await client.end()
    }
  })
