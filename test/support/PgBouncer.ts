import { type ChildProcess, spawn } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { freePort } from "./FreePort.js"

/**
 * A real PgBouncer (Debian's package, `/usr/sbin/pgbouncer`; `.ci/run` installs it) in
 * transaction mode in front of the run's PostgreSQL: every transaction may run on another
 * server connection, as behind Supavisor's port 6543 or RDS Proxy. Stopped with its scope.
 */

export const binary = "/usr/sbin/pgbouncer"

const waitForPort = (port: number) =>
  Effect.tryPromise(
    () =>
      new Promise<void>((resolve, reject) => {
        import("node:net").then(({ connect }) => {
          const socket = connect(port, "127.0.0.1", () => {
            socket.end()
            resolve()
          })
          socket.on("error", reject)
        }, reject)
      })
  ).pipe(
    Effect.retry(Schedule.spaced(Duration.millis(100)).pipe(Schedule.upTo(Duration.seconds(15)))),
    Effect.orDie
  )

/** Starts PgBouncer in front of `server` (a PostgreSQL URL) and returns the URL through it. */
export const inFrontOf = (server: URL) =>
  Effect.gen(function* () {
    if (!existsSync(binary)) {
      return yield* Effect.dieMessage(`PgBouncer is not installed at ${binary} (Debian package pgbouncer)`)
    }
    const port = yield* freePort
    const dir = mkdtempSync(join(tmpdir(), "latchkey-pgbouncer-"))
    // PgBouncer refuses to run as root; it switches to the postgres user, who must read these.
    chmodSync(dir, 0o755)
    const user = decodeURIComponent(server.username || "postgres")
    writeFileSync(join(dir, "users.txt"), `"${user}" ""\n`, { mode: 0o644 })
    writeFileSync(
      join(dir, "pgbouncer.ini"),
      [
        "[databases]",
        `* = host=${server.hostname} port=${server.port || "5432"}`,
        "[pgbouncer]",
        "listen_addr = 127.0.0.1",
        `listen_port = ${port}`,
        "unix_socket_dir =",
        "auth_type = trust",
        `auth_file = ${join(dir, "users.txt")}`,
        "pool_mode = transaction",
        "max_client_conn = 500",
        "default_pool_size = 10",
        "ignore_startup_parameters = extra_float_digits,options",
        ""
      ].join("\n"),
      { mode: 0o644 }
    )
    const asRoot = typeof process.getuid === "function" && process.getuid() === 0
    const child = yield* Effect.acquireRelease(
      Effect.sync(
        (): ChildProcess =>
          spawn(binary, [...(asRoot ? ["-u", "postgres"] : []), join(dir, "pgbouncer.ini")], {
            stdio: ["ignore", "ignore", "pipe"]
          })
      ),
      (process) =>
        Effect.sync(() => {
          process.kill("SIGTERM")
          rmSync(dir, { recursive: true, force: true })
        })
    )
    const errors: Array<string> = []
    child.stderr?.on("data", (chunk: Buffer) => errors.push(chunk.toString()))
    yield* waitForPort(port).pipe(
      Effect.catchAllDefect(() => Effect.dieMessage(`PgBouncer did not start: ${errors.join("")}`))
    )
    const through = new URL(server.href)
    through.hostname = "127.0.0.1"
    through.port = String(port)
    return through
  })
