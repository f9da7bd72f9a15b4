import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { connect, createServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { describe, expect, it } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AuthTables from "../../../adapters/postgres/auth/AuthTables.js"
import * as Database from "../../../adapters/postgres/Database.js"
import * as Migrations from "../../../adapters/postgres/Migrations.js"
import * as OAuthStoragePg from "../../../adapters/postgres/oauth/OAuthStoragePg.js"
import { PgPool } from "../../../adapters/postgres/PgPool.js"
import * as Prepared from "../../../adapters/postgres/Prepared.js"
import * as RateLimiterPg from "../../../adapters/postgres/RateLimiterPg.js"
import { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import { RateLimiter } from "../../../application/ports/RateLimiter.js"
import * as Fixtures from "../../support/oauth/Fixtures.js"
import * as TestDatabase from "../../support/TestDatabase.js"

const embeddedIn = (dataDir: string) =>
  Layer.provideMerge(
    OAuthStoragePg.layer,
    Database.layer({ url: Option.none(), dataDir: Option.some(dataDir) })
  )

const migrate = Migrations.run("oauth").pipe(Effect.provide(NodeFileSystem.layer))

describe("the embedded database", () => {
  it.live(
    "serves both services' named statements on the connection that replaces one the pool closed idle",
    () =>
      Effect.gen(function* () {
        yield* migrate
        yield* Migrations.run(AuthTables.migrationTarget("")).pipe(Effect.provide(NodeFileSystem.layer))
        const pool = yield* PgPool
        const clients = yield* ClientRepository
        const limiter = yield* RateLimiter
        const client = Fixtures.client()
        yield* clients.insert(client)
        const limit = { max: 10, window: Duration.minutes(5) }
        // The oauth service's client lookup and the auth service's rate limit: named statements.
        const round = Effect.all([
          clients.findById(client.id),
          limiter.consume("idle-test", limit, new Date())
        ])
        const closedIdle = yield* Deferred.make<void>()
        pool.once("remove", () => Deferred.unsafeDone(closedIdle, Effect.void))
        yield* round
        // PGlite keeps its one session while the pool closes the idle connection and opens
        // another; the statements prepared on the first must not stand in the second's way.
        yield* Deferred.await(closedIdle)
        expect(pool.totalCount).toBe(0)
        const [found, verdict] = yield* round
        expect(Option.getOrThrow(found)).toEqual(client)
        expect(verdict.allowed).toBe(true)
      }).pipe(
        Effect.provide(
          Layer.mergeAll(
            OAuthStoragePg.layer,
            RateLimiterPg.layerFor(AuthTables.make("").name("rate_limits"))
          ).pipe(
            Layer.provideMerge(
              Database.layer({ url: Option.none(), dataDir: Option.none(), idleTimeout: "50 millis" })
            )
          )
        )
      )
  )

  it.live("persists under its data folder across restarts and closes cleanly", () =>
    Effect.gen(function* () {
      const dataDir = mkdtempSync(join(tmpdir(), "latchkey-db-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
      const client = Fixtures.client()
      const firstRun = Effect.gen(function* () {
        const applied = yield* migrate
        const status = yield* Migrations.status("oauth").pipe(Effect.provide(NodeFileSystem.layer))
        expect(applied.map(([id]) => id).at(-1)).toBe(status.expected)
        yield* Effect.flatMap(ClientRepository, (clients) => clients.insert(client))
      })
      yield* Effect.scoped(
        Layer.build(embeddedIn(dataDir)).pipe(Effect.flatMap((ctx) => Effect.provide(firstRun, ctx)))
      )
      const secondRun = Effect.gen(function* () {
        expect(yield* migrate).toEqual([])
        const status = yield* Migrations.status("oauth").pipe(Effect.provide(NodeFileSystem.layer))
        expect(status.applied).toBe(status.expected)
        return yield* Effect.flatMap(ClientRepository, (clients) => clients.findById(client.id))
      })
      const found = yield* Effect.scoped(
        Layer.build(embeddedIn(dataDir)).pipe(Effect.flatMap((ctx) => Effect.provide(secondRun, ctx)))
      )
      expect(Option.getOrThrow(found)).toEqual(client)
    }).pipe(Effect.scoped)
  )

  it.live("refuses a data folder another holder has open, naming it and the variable to set instead", () =>
    Effect.gen(function* () {
      const dataDir = mkdtempSync(join(tmpdir(), "latchkey-db-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
      const layer = Database.layer({
        url: Option.none(),
        dataDir: Option.some(dataDir),
        urlVariable: "SQL_URL"
      })
      yield* Layer.build(layer)
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(layer)))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        const message = String(exit.cause)
        expect(message).toContain("EmbeddedDatabaseError")
        expect(message).toContain(`the embedded database in ${dataDir} is open in process ${process.pid}`)
        expect(message).toContain("or set SQL_URL to a PostgreSQL server")
      }
    }).pipe(Effect.scoped)
  )

  it.live("reports a schema that was never applied as version 0", () =>
    Effect.gen(function* () {
      const status = yield* Migrations.status("oauth").pipe(Effect.provide(NodeFileSystem.layer))
      expect(status.applied).toBe(0)
      expect(status.expected).toBeGreaterThanOrEqual(1)
    }).pipe(Effect.provide(Database.layer({ url: Option.none(), dataDir: Option.none() })))
  )

  it.live("keeps serving after a named statement fails the first time it runs", () =>
    Effect.gen(function* () {
      const pool = yield* PgPool
      const divide = Prepared.statement("test_divide", "SELECT 1 / $1::int AS quotient")
      const refused = yield* Effect.either(Prepared.run(pool, divide, [0]))
      expect(Either.isLeft(refused) && refused.left.cause).toMatchObject({ code: "22012" })
      // The same statement again (prepared by the failed run), then another: both answered.
      expect(yield* Prepared.run(pool, divide, [1])).toEqual([{ quotient: 1 }])
      expect(yield* Prepared.run(pool, Prepared.statement("test_two", "SELECT 2 AS two"), [])).toEqual([
        { two: 2 }
      ])
    }).pipe(Effect.provide(Database.layer({ url: Option.none(), dataDir: Option.none() })))
  )

  it.live("opens a connection again when the database's socket turned the first away", () =>
    Effect.gen(function* () {
      const db = yield* Effect.acquireRelease(
        Effect.promise(() => PGlite.create()),
        (db) => Effect.promise(() => db.close())
      )
      const socket = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 1 })
          await server.start()
          return server
        }),
        (server) => Effect.promise(() => server.stop())
      )
      // A proxy in front of it plays the moment its one connection is still closing: the first
      // connection is turned away as the socket server turns away one too many; later ones pass.
      const sockets = new Set<Socket>()
      const front = createServer((client: Socket) => {
        sockets.add(client)
        if (sockets.size === 1) {
          client.end("Too many connections\n")
          return
        }
        const upstream = connect(Number(socket.getServerConn().split(":")[1]), "127.0.0.1")
        sockets.add(upstream)
        client.pipe(upstream).pipe(client)
        client.on("error", () => upstream.destroy())
        upstream.on("error", () => client.destroy())
      })
      const port = yield* Effect.acquireRelease(
        Effect.async<number>((resume) => {
          front.listen(0, "127.0.0.1", () => {
            const address = front.address()
            resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
          })
        }),
        // The connection turned away stays half open on the client's side: closed here.
        () =>
          Effect.async<void>((resume) => {
            for (const open of sockets) open.destroy()
            front.close(() => resume(Effect.void))
          })
      )
      const url = Redacted.make(`postgres://postgres@127.0.0.1:${port}/postgres`)
      const pool = yield* Effect.map(
        Layer.build(Database.layer({ url: Option.some(url), dataDir: Option.none(), maxConnections: 1 })),
        (context) => Context.get(context, PgPool)
      )
      expect(yield* Prepared.run(pool, Prepared.statement("test_four", "SELECT 4 AS four"), [])).toEqual([
        { four: 4 }
      ])
      // The connection turned away, the one opened again (and its way on to the database).
      expect(sockets.size).toBe(3)
    }).pipe(Effect.scoped)
  )

  it.live("fails with a typed error, not a crash, when the data folder cannot be used", () =>
    Effect.gen(function* () {
      const parent = mkdtempSync(join(tmpdir(), "latchkey-db-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(parent, { recursive: true, force: true })))
      // A regular file where a folder should be: the folder cannot be created.
      writeFileSync(join(parent, "file"), "")
      const exit = yield* Effect.exit(
        Effect.scoped(
          Layer.build(
            Database.layer({ url: Option.none(), dataDir: Option.some(join(parent, "file", "data")) })
          )
        )
      )
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(String(exit.cause)).toContain("EmbeddedDatabaseError")
    }).pipe(Effect.scoped)
  )
})

describe.skipIf(TestDatabase.isEmbedded("server"))("a statement on a server connection", () => {
  it.live("that breaks mid-statement fails alone; the next statement gets a new connection", () =>
    Effect.gen(function* () {
      const pool = yield* PgPool
      const ended = yield* Effect.either(
        Prepared.run(
          pool,
          Prepared.statement("test_end_own", "SELECT pg_terminate_backend(pg_backend_pid())"),
          []
        )
      )
      expect(Either.isLeft(ended)).toBe(true)
      expect(
        yield* Prepared.run(pool, Prepared.statement("test_after_end", "SELECT 3 AS three"), [])
      ).toEqual([{ three: 3 }])
    }).pipe(Effect.provide(TestDatabase.layer("server")))
  )
})

describe("migrations", () => {
  it.live("several instances starting together on one fresh database all come up, and migrate once", () =>
    Effect.gen(function* () {
      const url = yield* TestDatabase.freshUrl()
      // Each instance has its own pool, as separate processes would; without a server the
      // embedded database (one process, one connection) can only show that a second run is a
      // no-op, on a data folder of its own that the status read below opens again.
      const dataDir = mkdtempSync(join(tmpdir(), "latchkey-migrate-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
      const instance = Option.match(url, {
        onNone: () => Database.layer({ url: Option.none(), dataDir: Option.some(dataDir) }),
        onSome: (value) => Database.layer({ url: Option.some(Redacted.make(value)), dataDir: Option.none() })
      })
      const instances = Option.isSome(url) ? 6 : 1
      const applied = yield* Effect.forEach(
        Array.from({ length: instances }),
        () =>
          Effect.scoped(Layer.build(instance).pipe(Effect.flatMap((ctx) => Effect.provide(migrate, ctx)))),
        { concurrency: "unbounded" }
      )
      const expected = yield* Effect.scoped(
        Layer.build(instance).pipe(
          Effect.flatMap((ctx) =>
            Effect.provide(Migrations.status("oauth").pipe(Effect.provide(NodeFileSystem.layer)), ctx)
          )
        )
      )
      expect(expected.applied).toBe(expected.expected)
      // Every migration was applied by exactly one of them.
      const ids = applied.flatMap((run) => run.map(([id]) => id)).sort((a, b) => a - b)
      expect(ids).toEqual(Array.from({ length: expected.expected }, (_, index) => index + 1))
    }).pipe(Effect.scoped)
  )

  it.live("keeps a prefixed service's migrations in a table of its own", () =>
    Effect.gen(function* () {
      const target = { service: "oauth", tablePrefix: "tenant_" } as const
      yield* Migrations.run(target).pipe(Effect.provide(NodeFileSystem.layer))
      const prefixed = yield* Migrations.status(target).pipe(Effect.provide(NodeFileSystem.layer))
      expect(prefixed.applied).toBe(prefixed.expected)
      const plain = yield* Migrations.status("oauth").pipe(Effect.provide(NodeFileSystem.layer))
      expect(plain.applied).toBe(0)
    }).pipe(Effect.provide(Database.layer({ url: Option.none(), dataDir: Option.none() })))
  )

  it.live("refuses a table prefix that is not a plain identifier part, before any SQL", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(
        Migrations.run({ service: "oauth", tablePrefix: "x; DROP TABLE y; --" }).pipe(
          Effect.provide(NodeFileSystem.layer)
        )
      )
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("InvalidTablePrefix")
      const status = yield* Migrations.status("oauth").pipe(Effect.provide(NodeFileSystem.layer))
      expect(status.applied).toBe(0)
    }).pipe(Effect.provide(Database.layer({ url: Option.none(), dataDir: Option.none() })))
  )
})
