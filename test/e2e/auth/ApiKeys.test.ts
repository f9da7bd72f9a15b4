import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Server from "../../support/auth/AuthServerHarness.js"
import * as Supabase from "../../support/auth/SupabaseClient.js"
import * as CliProcess from "../../support/CliProcess.js"

/** What the auth service cannot start without, as on the machine that runs it. */
const required = {
  AUTHSVC_SITE_URL: "http://localhost:3000",
  AUTHSVC_API_EXTERNAL_URL: "http://localhost:8081"
}

/**
 * `latchkey auth keys api` as an operator runs it beside the service, configured by `env` (over
 * what the service requires) alone, in an empty folder. It opens no database.
 */
const keysApi = (env: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const folder = mkdtempSync(join(tmpdir(), "latchkey-keys-api-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(folder, { recursive: true, force: true })))
    const running = yield* CliProcess.spawnCli(
      ["auth", "keys", "api"],
      { ...required, LATCHKEY_DATA_DIR: folder, ...env },
      { cwd: folder }
    )
    const code = yield* running.exited
    // Nothing was created there: no embedded database was started.
    expect(readdirSync(folder)).toEqual([])
    return { code, lines: running.lines() }
  })

const keyOf = (lines: ReadonlyArray<string>, role: string) => {
  const line = lines.find((printed) => printed.startsWith(`${role} key: `))
  if (line === undefined) throw new Error(`no ${role} key in:\n${lines.join("\n")}`)
  return line.slice(`${role} key: `.length)
}

describe("latchkey auth keys api", () => {
  it.live(
    "prints keys the service takes: supabase-js works with the anon key, the admin API with the service_role key",
    () =>
      Effect.gen(function* () {
        // The operator's environment names GoTrue's variable, as a Supabase deployment does.
        const printed = yield* keysApi({ GOTRUE_JWT_SECRET: Server.jwtSecret })
        expect(printed.code, printed.lines.join("\n")).toBe(0)
        const anon = keyOf(printed.lines, "anon")
        const serviceRole = keyOf(printed.lines, "service_role")

        const { baseUrl } = yield* Server.start()
        const app = Supabase.client(baseUrl, anon)
        const signedUp = yield* Effect.promise(() =>
          app.auth.signUp({ email: "ada@example.com", password: "a long password" })
        )
        expect(signedUp.error).toBeNull()
        const signedIn = yield* Effect.promise(() =>
          app.auth.signInWithPassword({ email: "ada@example.com", password: "a long password" })
        )
        expect(signedIn.error).toBeNull()
        expect(signedIn.data.user?.email).toBe("ada@example.com")

        const admin = Supabase.client(baseUrl, serviceRole)
        const listed = yield* Effect.promise(() => admin.auth.admin.listUsers())
        expect(listed.error).toBeNull()
        expect(listed.data.users.map((user) => user.email)).toContain("ada@example.com")

        // The anon key is no admin's.
        const refused = yield* Effect.promise(() => Supabase.client(baseUrl, anon).auth.admin.listUsers())
        expect(Supabase.apiError(refused.error)).toMatchObject({ status: 403, code: "not_admin" })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live("without a JWT secret: exit 1, no key, and the variable to set", () =>
    Effect.gen(function* () {
      const printed = yield* keysApi({})
      expect(printed.code).toBe(1)
      expect(printed.lines.join("\n")).toContain("AUTHSVC_JWT_SECRET is unset")
      expect(printed.lines.some((line) => line.startsWith("anon key:"))).toBe(false)
    }).pipe(Effect.scoped)
  )
})
