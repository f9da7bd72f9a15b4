import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Supabase from "../../support/auth/SupabaseClient.js"
import * as CliProcess from "../../support/CliProcess.js"
import { freePort } from "../../support/FreePort.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/**
 * `npm start` as a developer runs it (`latchkey oauth migrate`, then `latchkey dev`) with no JWT
 * secret set: the start-up log carries the API keys, and they work.
 */
const startDev = (dataDir: string, databaseUrl: Option.Option<string>) =>
  Effect.gen(function* () {
    const [auth, oauth, inbox, smtp] = yield* Effect.all([freePort, freePort, freePort, freePort])
    const env = {
      LATCHKEY_DATA_DIR: dataDir,
      API_HOST: "127.0.0.1",
      PORT: String(oauth),
      BASE_URL: `http://127.0.0.1:${oauth}`,
      AUTHSVC_API_HOST: "127.0.0.1",
      AUTHSVC_API_PORT: String(auth),
      AUTHSVC_API_EXTERNAL_URL: `http://127.0.0.1:${auth}`,
      AUTHSVC_SMTP_PORT: String(smtp),
      LATCHKEY_INBOX_PORT: String(inbox),
      AUTHSVC_MAILER_AUTOCONFIRM: "true",
      DATABASE_URL: Option.getOrUndefined(databaseUrl),
      SQL_URL: Option.getOrUndefined(databaseUrl)
    }
    const migrate = yield* CliProcess.spawnCli(["oauth", "migrate"], env, { cwd: dataDir })
    expect(yield* migrate.exited, migrate.lines().join("\n")).toBe(0)
    const dev = yield* CliProcess.spawnCli(["dev"], env, { cwd: dataDir })
    const keyOf = (role: string) =>
      Effect.map(
        dev.waitForLine(new RegExp(`"msg":"${role} key: [^"]+"`), "60 seconds"),
        (line) => new RegExp(`"msg":"${role} key: ([^"]+)"`).exec(line)?.[1] ?? ""
      )
    const anon = yield* keyOf("anon")
    const serviceRole = yield* keyOf("service_role")
    const authUrl = `http://127.0.0.1:${auth}`
    // The keys come once the service listens: a script started at them is answered at once.
    const printed = dev.lines()
    const listening = printed.findIndex((line) =>
      line.includes(`auth: listening on http://127.0.0.1:${auth}`)
    )
    expect(listening, printed.join("\n")).toBeGreaterThanOrEqual(0)
    expect(listening).toBeLessThan(printed.findIndex((line) => line.includes('"msg":"anon key: ')))
    const health = yield* Effect.promise(() => fetch(`${authUrl}/health`))
    expect(health.status).toBe(200)
    return { authUrl, anon, serviceRole, lines: dev.lines }
  })

describe("latchkey dev's API keys", () => {
  it.live(
    "printed at start, signed with a secret it keeps in the data folder, valid across restarts",
    () =>
      Effect.gen(function* () {
        const dataDir = mkdtempSync(join(tmpdir(), "latchkey-dev-keys-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
        const databaseUrl = yield* TestDatabase.freshUrl()

        const first = yield* Effect.scoped(
          Effect.gen(function* () {
            const started = yield* startDev(dataDir, databaseUrl)
            expect(started.lines().join("\n")).toContain(join(dataDir, "dev-jwt-secret"))
            const app = Supabase.client(started.authUrl, started.anon)
            const signedUp = yield* Effect.promise(() =>
              app.auth.signUp({ email: "grace@example.com", password: "a long password" })
            )
            expect(signedUp.error).toBeNull()
            const listed = yield* Effect.promise(() =>
              Supabase.client(started.authUrl, started.serviceRole).auth.admin.listUsers()
            )
            expect(listed.error).toBeNull()
            expect(listed.data.users.map((user) => user.email)).toContain("grace@example.com")
            return started
          })
        )
        // The secret is the owner's alone.
        expect(statSync(join(dataDir, "dev-jwt-secret")).mode & 0o777).toBe(0o600)

        // Started again: the same secret, so the keys printed before still work.
        const second = yield* startDev(dataDir, databaseUrl)
        const listed = yield* Effect.promise(() =>
          Supabase.client(second.authUrl, first.serviceRole).auth.admin.listUsers()
        )
        expect(listed.error).toBeNull()
        expect(listed.data.users.map((user) => user.email)).toContain("grace@example.com")
      }).pipe(Effect.scoped),
    { timeout: 180_000 }
  )
})
