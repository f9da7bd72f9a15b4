import { mkdirSync } from "node:fs"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Str from "effect/String"
import Pg from "pg"
import * as DatabaseUnavailable from "./DatabaseUnavailable.js"
import * as DataDirLock from "./DataDirLock.js"
import { PgPool, type StatementPool } from "./PgPool.js"

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
  /**
   * The variable that names a PostgreSQL server instead (`DATABASE_URL`, `SQL_URL`), for the
   * message that refuses a data folder another process holds.
   */
  readonly urlVariable?: string
  /** Connections of the Postgres pool (ignored for the embedded database, which takes one). */
  readonly maxConnections?: number
  /**
   * How long a statement may wait for a connection, opening one included (default 5 s): a
   * database that accepts connections but answers nothing must not hold requests forever.
   */
  readonly connectTimeout?: Duration.DurationInput
  /**
   * How long a statement may wait for its answer; none by default (migrations may be long).
   * Servers set one for the same reason as `connectTimeout`.
   */
  readonly queryTimeout?: Duration.DurationInput
  /**
   * How long a connection may sit idle before the pool closes it (node-postgres's 10 s when
   * unset; zero keeps idle connections open).
   */
  readonly idleTimeout?: Duration.DurationInput
  /**
   * Whether the hot statements are prepared by name, once per server connection (true by
   * default). Off behind a pooler in transaction mode (PgBouncer, Supavisor, RDS Proxy), where
   * a transaction's server connection is not the next one's: a statement prepared on one would
   * be missing on the other, or found twice.
   */
  readonly preparedStatements?: boolean
}

const defaultConnectTimeout = Duration.seconds(5)

const timeouts = (options: DatabaseOptions): Pg.PoolConfig => ({
  connectionTimeoutMillis: Duration.toMillis(options.connectTimeout ?? defaultConnectTimeout),
  ...(options.queryTimeout === undefined ? {} : { query_timeout: Duration.toMillis(options.queryTimeout) }),
  ...(options.idleTimeout === undefined ? {} : { idleTimeoutMillis: Duration.toMillis(options.idleTimeout) })
})

type ConnectCallback = (
  error: Error | undefined,
  client: Pg.PoolClient | undefined,
  done: (release?: unknown) => void
) => void

/** How long to wait before the one retry of a connection that could not be opened. */
const reconnectDelayMillis = 200

/**
 * A pool that tries once more, after a moment, to open a connection that failed before any
 * statement went out (the server restarting or failing over): the request then succeeds
 * instead of failing, and nothing can run twice. Every statement, of `@effect/sql` and of
 * Prepared.ts alike, takes its connection through `connect`.
 */
class RetryingPool extends Pg.Pool implements StatementPool {
  constructor(
    config: Pg.PoolConfig,
    readonly namedStatements: boolean
  ) {
    super(config)
  }

  override connect(): Promise<Pg.PoolClient>
  override connect(callback: ConnectCallback): void
  override connect(callback?: ConnectCallback): Promise<Pg.PoolClient> | undefined {
    if (callback === undefined) {
      return super
        .connect()
        .catch((error: unknown) =>
          DatabaseUnavailable.isBeforeSending(error)
            ? new Promise<void>((resolve) => setTimeout(resolve, reconnectDelayMillis)).then(() =>
                super.connect()
              )
            : Promise.reject(error)
        )
    }
    super.connect((error, client, done) => {
      if (error !== undefined && DatabaseUnavailable.isBeforeSending(error) && !this.ending) {
        setTimeout(() => super.connect(callback), reconnectDelayMillis)
      } else callback(error, client, done)
    })
    return undefined
  }
}

/** Columns are snake_case in SQL and camelCase in rows, matching the domain's field names. */
const naming = {
  transformResultNames: Str.snakeToCamel,
  transformQueryNames: Str.camelToSnake,
  // Only column names: the keys inside jsonb values are data (`full_name` in user metadata)
  // and come back exactly as they were stored.
  transformJson: false
}

/**
 * One `pg` pool per process, shared by `@effect/sql` and `PgPool` (the statements of both
 * services' hot paths, run through Prepared.ts), so the embedded database's single connection
 * and a server's connection limit are both respected.
 */
const pooled = (config: Pg.PoolConfig, namedStatements = true) =>
  Effect.gen(function* () {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new RetryingPool({ application_name: "latchkey", ...config }, namedStatements)
        // A broken idle connection is dropped by the pool; the next query opens another.
        pool.on("error", () => {})
        return pool
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption("1 second"))
    )
    yield* Effect.tryPromise({
      try: () => pool.query("SELECT 1"),
      catch: (cause) => new SqlError({ cause, message: "cannot connect to PostgreSQL" })
    }).pipe(
      Effect.timeoutFail({
        duration: "5 seconds",
        onTimeout: () => new SqlError({ message: "cannot connect to PostgreSQL: timed out" })
      })
    )
    return Layer.merge(
      PgClient.layerFromPool({ acquire: Effect.succeed(pool), ...naming }),
      Layer.succeed(PgPool, pool)
    )
  })

/**
 * PGlite runs one session for the life of the process, whichever connection speaks to it: when
 * the pool closes its connection (idle, or broken) and opens another, the session still holds
 * what the old one left (named statements, which the new connection would prepare again and be
 * told "already exists"; an open transaction; advisory locks). So each new connection first
 * ends that session's state, as a new server session starts without it; the pool hands the
 * connection out only once that is done (node-postgres's `onConnect`).
 */
const freshSession = async (client: Pg.ClientBase): Promise<void> => {
  // A transaction left open by a connection that broke mid-way, then everything else.
  // Separate statements: DISCARD ALL cannot run inside a transaction block.
  await client.query("ROLLBACK")
  await client.query("DISCARD ALL")
}

/** Why a data folder another process holds cannot be opened, and what to do instead, in a line. */
const inUseMessage = (error: DataDirLock.DataDirInUse, urlVariable: string | undefined) => {
  const holder = Option.match(error.holder, {
    onNone: () => "another process (it did not say which)",
    onSome: ({ pid, command, since }) => `process ${pid} (${command}, since ${since})`
  })
  return (
    `the embedded database in ${error.dir} is open in ${holder}, and it serves one process at a time: ` +
    `stop that process first, or set ${urlVariable ?? "a database URL"} to a PostgreSQL server both can share`
  )
}

/**
 * The data folder, created if need be and locked to this process for as long as the scope lasts
 * (DataDirLock.ts): a second process on it would run a database of its own over the same files.
 */
const openDataDir = (dir: string, urlVariable: string | undefined) =>
  Effect.try({
    try: () => mkdirSync(dir, { recursive: true }),
    catch: (cause) =>
      new EmbeddedDatabaseError({ message: `cannot open the embedded database in ${dir}: ${String(cause)}` })
  }).pipe(
    Effect.zipRight(
      DataDirLock.acquire(dir).pipe(
        Effect.mapError((error) => new EmbeddedDatabaseError({ message: inUseMessage(error, urlVariable) }))
      )
    )
  )

/**
 * Starts PGlite and serves it on an ephemeral loopback port, so that the one Postgres adapter
 * speaks to it through the same `@effect/sql-pg` client as to a real server. PGlite runs a
 * single session: the pool must hold exactly one connection, and a new one starts the session
 * afresh (`freshSession`). A data folder is opened by one process at a time.
 */
const embedded = (dataDir: Option.Option<string>, urlVariable: string | undefined, limits: Pg.PoolConfig) =>
  Effect.gen(function* () {
    // Loaded here: a service on a PostgreSQL server never needs the embedded one.
    const [{ PGlite }, { PGLiteSocketServer }] = yield* Effect.tryPromise({
      try: () => Promise.all([import("@electric-sql/pglite"), import("@electric-sql/pglite-socket")]),
      catch: (cause) =>
        new EmbeddedDatabaseError({ message: `cannot load the embedded database: ${String(cause)}` })
    })
    if (Option.isSome(dataDir)) yield* openDataDir(dataDir.value, urlVariable)
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          Option.match(dataDir, {
            onNone: () => PGlite.create(),
            onSome: (dir) => PGlite.create(dir)
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
    return yield* pooled({
      host: "127.0.0.1",
      port,
      database: "postgres",
      user: "postgres",
      max: 1,
      onConnect: freshSession,
      ...limits
    })
  })

export const layer = (options: DatabaseOptions) =>
  Layer.unwrapScoped(
    Option.match(options.url, {
      onSome: (url) =>
        pooled(
          {
            connectionString: Redacted.value(url),
            max: options.maxConnections ?? 10,
            ...timeouts(options)
          },
          options.preparedStatements ?? true
        ),
      onNone: () => embedded(options.dataDir, options.urlVariable, timeouts(options))
    })
  )
