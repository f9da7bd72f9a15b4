import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliProcess from "../support/CliProcess.js"
import { freePort } from "../support/FreePort.js"
import * as TestDatabase from "../support/TestDatabase.js"

/**
 * The built `latchkey` executable as an operator meets it: its help read through a pipe, the
 * operator commands run with the database's variables alone, and the one-line answers to a
 * database without its schema, a database that refuses the connection and a port taken.
 */

/** A folder of its own for an embedded database, removed with the scope. */
const dataDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "latchkey-cli-e2e-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** `latchkey <args>` with exactly `env`, run to its end: its exit code and every line it printed. */
const latchkey = (args: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const running = yield* CliProcess.spawnCli(args, env)
      const code = yield* running.exited
      return { code, lines: running.lines(), text: running.lines().join("\n") }
    })
  )

/** A loopback port someone else listens on, until the scope closes. */
const taken = Effect.acquireRelease(
  Effect.async<{ readonly server: Server; readonly port: number }>((resume) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resume(
        Effect.succeed({ server, port: typeof address === "object" && address !== null ? address.port : 0 })
      )
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

const esc = String.fromCharCode(27)

/** No stack trace: a line of one starts with "at". */
const stackLine = /^\s+at /

describe("the latchkey command line", () => {
  it.live("prints its help plainly into a pipe, every command named whole", () =>
    Effect.gen(function* () {
      const overview = yield* latchkey(["--help"], {})
      expect(overview.code).toBe(0)
      expect(overview.text).toMatch(/^ {2}auth users list {2,}List users/m)
      expect(overview.text).not.toMatch(/\b(auth auth|oauth oauth)\b/)
      expect(overview.text).not.toContain(esc)

      const list = yield* latchkey(["auth", "users", "list", "--help"], {})
      expect(list.code).toBe(0)
      expect(list.text).toContain(
        "USAGE\n  latchkey auth users list [--page N] [--per-page N] [--filter TEXT]"
      )
      expect(list.text).toMatch(/--per-page N +How many users a page holds/)
      expect(list.text).toContain("AUTHSVC_DB_DATABASE_URL, else DATABASE_URL")
      expect(list.text).not.toContain(esc)

      // @effect/cli's own messages carry colour codes; into a pipe they come without.
      const wrong = yield* latchkey(["auth", "users", "list", "--page", "many"], {})
      expect(wrong.code).toBe(1)
      expect(wrong.text).toContain("'many' is not a integer")
      expect(wrong.text).not.toContain(esc)

      const unknown = yield* latchkey(["auth", "user"], {})
      expect(unknown.code).toBe(1)
      expect(unknown.lines).toEqual(["latchkey: no command `latchkey auth user`; see `latchkey auth --help`"])
    })
  )

  it.live(
    "runs the operator commands with the database alone, after telling in one line that it needs its schema",
    () =>
      Effect.gen(function* () {
        const dir = yield* dataDir
        const url = yield* TestDatabase.freshUrl()
        // Nothing but the database: no AUTHSVC_SITE_URL, no AUTHSVC_API_EXTERNAL_URL.
        const auth = { LATCHKEY_DATA_DIR: dir, DATABASE_URL: Option.getOrUndefined(url) }
        const oauth = { LATCHKEY_DATA_DIR: dir, SQL_URL: Option.getOrUndefined(url) }

        for (const [args, env, service] of [
          [["auth", "users", "list"], auth, "auth"],
          [["auth", "keys", "list"], auth, "auth"],
          [["oauth", "clients", "list"], oauth, "oauth"],
          [["oauth", "reap"], oauth, "oauth"]
        ] as const) {
          const refused = yield* latchkey(args, env)
          expect(refused.code, refused.text).toBe(1)
          expect(refused.lines, refused.text).toContain(
            `latchkey: the ${service} schema is missing: run \`latchkey ${service} migrate\` first`
          )
          expect(
            refused.lines.filter((line) => stackLine.test(line)),
            refused.text
          ).toEqual([])
        }

        const migrated = yield* latchkey(["auth", "migrate"], auth)
        expect(migrated.code, migrated.text).toBe(0)
        const created = yield* latchkey(
          [
            "auth",
            "users",
            "create",
            "--email",
            "ada@example.com",
            "--password-env",
            "ADA_PASSWORD",
            "--confirmed"
          ],
          { ...auth, ADA_PASSWORD: "correct horse battery staple" }
        )
        expect(created.code, created.text).toBe(0)
        expect(created.text).toMatch(/created [0-9a-f-]{36}/)
        const listed = yield* latchkey(["auth", "users", "list"], auth)
        expect(listed.code, listed.text).toBe(0)
        expect(listed.text).toContain("ada@example.com")
        expect(listed.text).toMatch(/^1 user$/m)
        const others = yield* latchkey(["auth", "users", "list", "--filter", "grace"], auth)
        expect(others.code, others.text).toBe(0)
        expect(others.text).toContain("0 users")
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )

  it.live("names the variable of a database that refuses the connection", () =>
    Effect.gen(function* () {
      const dir = yield* dataDir
      const port = yield* freePort
      const nowhere = `postgres://postgres@127.0.0.1:${port}/latchkey`
      const cases = [
        [["auth", "users", "list"], { DATABASE_URL: nowhere }, "auth: DATABASE_URL"],
        [["auth", "migrate"], { AUTHSVC_DB_DATABASE_URL: nowhere }, "auth: AUTHSVC_DB_DATABASE_URL"],
        [["auth", "keys", "list"], { GOTRUE_DB_DATABASE_URL: nowhere }, "auth: GOTRUE_DB_DATABASE_URL"],
        [["oauth", "clients", "list"], { SQL_URL: nowhere }, "oauth: SQL_URL"]
      ] as const
      for (const [args, env, named] of cases) {
        const refused = yield* latchkey(args, { LATCHKEY_DATA_DIR: dir, ...env })
        expect(refused.code, refused.text).toBe(1)
        expect(refused.lines).toEqual([
          `latchkey: ${named}: cannot connect to PostgreSQL: connect ECONNREFUSED 127.0.0.1:${port}`
        ])
      }
    }).pipe(Effect.scoped)
  )

  it.live("names the service and the variable of a port taken, before any database work", () =>
    Effect.gen(function* () {
      const dir = yield* dataDir
      const { port } = yield* taken
      // A database that refuses: the port is checked first, so that is what the line is about.
      const nowhere = `postgres://postgres@127.0.0.1:${yield* freePort}/latchkey`
      const auth = {
        LATCHKEY_DATA_DIR: dir,
        AUTHSVC_SITE_URL: "http://localhost:3000",
        AUTHSVC_API_EXTERNAL_URL: "http://127.0.0.1:8081",
        AUTHSVC_API_HOST: "127.0.0.1",
        DATABASE_URL: nowhere
      }
      const alone = yield* latchkey(["auth", "serve"], { ...auth, PORT: String(port) })
      expect(alone.code, alone.text).toBe(1)
      expect(alone.lines).toContain(
        `latchkey: auth: cannot listen on 127.0.0.1:${port} (AUTHSVC_API_PORT, else PORT): address in use`
      )
      expect(alone.text).not.toContain("DATABASE_URL")

      const oauth = yield* latchkey(["oauth", "serve"], {
        LATCHKEY_DATA_DIR: dir,
        API_HOST: "127.0.0.1",
        PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        SQL_URL: nowhere
      })
      expect(oauth.code, oauth.text).toBe(1)
      expect(oauth.lines).toContain(
        `latchkey: oauth: cannot listen on 127.0.0.1:${port} (PORT): address in use`
      )

      // Beside the oauth service, PORT is the oauth service's: the auth service's is AUTHSVC_API_PORT.
      const beside = yield* latchkey(["serve"], { ...auth, AUTHSVC_API_PORT: String(port), SQL_URL: nowhere })
      expect(beside.code, beside.text).toBe(1)
      expect(beside.lines).toContain(
        `latchkey: auth: cannot listen on 127.0.0.1:${port} (AUTHSVC_API_PORT): address in use`
      )
    }).pipe(Effect.scoped)
  )

  it.live(
    "latchkey dev listens on this machine's loopback when no address is set",
    () =>
      Effect.gen(function* () {
        const dir = yield* dataDir
        const [authPort, oauthPort, inboxPort, smtpPort] = [
          yield* freePort,
          yield* freePort,
          yield* freePort,
          yield* freePort
        ]
        const env = {
          LATCHKEY_DATA_DIR: dir,
          PORT: String(oauthPort),
          BASE_URL: `http://localhost:${oauthPort}`,
          AUTHSVC_API_PORT: String(authPort),
          AUTHSVC_API_EXTERNAL_URL: `http://localhost:${authPort}`,
          LATCHKEY_INBOX_PORT: String(inboxPort),
          AUTHSVC_SMTP_PORT: String(smtpPort)
        }
        const migrated = yield* latchkey(["oauth", "migrate"], env)
        expect(migrated.code, migrated.text).toBe(0)
        const dev = yield* CliProcess.spawnCli(["dev"], env)
        const within = Duration.seconds(90)
        yield* dev.waitForLine(new RegExp(`auth: listening on http://127\\.0\\.0\\.1:${authPort}\\b`), within)
        yield* dev.waitForLine(
          new RegExp(`oauth: listening on http://127\\.0\\.0\\.1:${oauthPort}\\b`),
          within
        )
        yield* CliProcess.waitUntilAnswering(dev, `http://127.0.0.1:${authPort}/health`)
      }).pipe(Effect.scoped),
    { timeout: 150_000 }
  )
})
