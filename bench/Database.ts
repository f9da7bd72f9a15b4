/** The database a bench runs on: one of its own on SQL_URL's server, and a free port for the server. */
import { randomBytes } from "node:crypto"
import { createServer } from "node:net"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

/** A database `latchkey_bench_<random>` on `adminUrl`'s server, dropped (with any leftover connection) at the end. */
export const fresh = (adminUrl: string) =>
  Effect.gen(function* () {
    const name = `latchkey_bench_${randomBytes(6).toString("hex")}`
    const admin = yield* PgClient.make({ url: Redacted.make(adminUrl), maxConnections: 1 })
    yield* admin.unsafe(`CREATE DATABASE ${name}`)
    yield* Effect.addFinalizer(() =>
      admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(
        Effect.tap(() => Effect.sync(() => console.log(`dropped database ${name}`))),
        Effect.orDie
      )
    )
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    return { name, url: url.toString() }
  }).pipe(Effect.provide(Reactivity.layer))

export const freePort = Effect.async<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

export interface ServerInfo {
  readonly version: string
  /** The settings that move write-heavy figures most. */
  readonly settings: string
}

/** The PostgreSQL server's version and settings, for the record of a run. */
export const serverInfo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [server] = yield* sql<{
    readonly version: string
    readonly synchronousCommit: string
    readonly sharedBuffers: string
  }>`SELECT version(), current_setting('synchronous_commit') AS synchronous_commit,
            current_setting('shared_buffers') AS shared_buffers`
  return {
    version: server?.version ?? "unknown",
    settings:
      server === undefined
        ? "unknown"
        : `synchronous_commit=${server.synchronousCommit}, shared_buffers=${server.sharedBuffers}`
  } satisfies ServerInfo
})
