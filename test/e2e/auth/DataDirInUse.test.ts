import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as CliProcess from "../../support/CliProcess.js"
import { freePort } from "../../support/FreePort.js"

/**
 * The embedded database's folder is opened by one process at a time: a second `latchkey` on it
 * (an operator command while the service runs, a second server) is refused with a line naming
 * the first, and what the first wrote is there after its restart. A process killed outright
 * leaves nothing that stops the next one.
 */

/** A data folder, removed with the scope. */
const dataFolder = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "latchkey-datadir-e2e-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** What every process of one folder gets: the folder, and the auth service's two URLs. */
const variables = (dataDir: string, port: number) => ({
  LATCHKEY_DATA_DIR: dataDir,
  AUTHSVC_API_HOST: "127.0.0.1",
  PORT: String(port),
  AUTHSVC_SITE_URL: "http://localhost:3000",
  AUTHSVC_API_EXTERNAL_URL: `http://127.0.0.1:${port}`,
  AUTHSVC_MAILER_AUTOCONFIRM: "true"
})

/** `latchkey auth serve` on `dataDir`, answering; stopped (SIGTERM) with its scope. */
const serve = (dataDir: string) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const running = yield* CliProcess.spawnCli(["auth", "serve"], variables(dataDir, port))
    const baseUrl = `http://127.0.0.1:${port}`
    yield* CliProcess.waitUntilAnswering(running, `${baseUrl}/health`)
    return { running, baseUrl }
  })

const post = (url: string, body: unknown) =>
  Effect.promise(() =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })
  )

const password = "correct horse battery staple"

const signUp = (baseUrl: string, email: string) =>
  Effect.map(post(`${baseUrl}/signup`, { email, password }), (response) => response.status)

const signIn = (baseUrl: string, email: string) =>
  Effect.map(post(`${baseUrl}/token?grant_type=password`, { email, password }), (response) => response.status)

/** The one line a refused process ends with, after it has ended with exit code 1. */
const refusal = (refused: CliProcess.Running) =>
  Effect.gen(function* () {
    expect(yield* refused.exited, refused.lines().join("\n")).toBe(1)
    const line = refused.lines().find((line) => line.includes("is open in process"))
    expect(line, refused.lines().join("\n")).toBeDefined()
    return line ?? ""
  })

describe("one process per embedded data folder", () => {
  it.live(
    "an operator command and a second server on a served folder are refused, naming the server, and nothing is lost",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* dataFolder
        const ada = `ada-${crypto.randomUUID()}@example.com`
        const bob = `bob-${crypto.randomUUID()}@example.com`

        yield* Effect.scoped(
          Effect.gen(function* () {
            const first = yield* serve(dataDir)
            expect(yield* signUp(first.baseUrl, ada)).toBe(200)

            const command = yield* CliProcess.spawnCli(
              ["auth", "users", "create", "--email", bob, "--password-env", "BOB_PASSWORD", "--confirmed"],
              { ...variables(dataDir, yield* freePort), BOB_PASSWORD: password }
            )
            const line = yield* refusal(command)
            expect(line).toContain(`process ${first.running.pid} (latchkey auth serve, since `)
            expect(line).toContain("stop that process first, or set DATABASE_URL")

            const second = yield* CliProcess.spawnCli(["auth", "serve"], variables(dataDir, yield* freePort))
            expect(yield* refusal(second)).toContain(`process ${first.running.pid} `)

            // The server never noticed: it still serves what it wrote.
            expect(yield* signIn(first.baseUrl, ada)).toBe(200)
          })
        )

        // After a restart, the sign-up the first server answered is there, and the refused
        // command's user is not.
        yield* Effect.scoped(
          Effect.gen(function* () {
            const restarted = yield* serve(dataDir)
            expect(yield* signIn(restarted.baseUrl, ada)).toBe(200)
            expect(yield* signIn(restarted.baseUrl, bob)).toBe(400)
          })
        )
      }).pipe(Effect.scoped),
    { timeout: 180_000 }
  )

  it.live(
    "a server killed outright leaves no lock that stops the next start, and what it wrote stays",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* dataFolder
        const ada = `ada-${crypto.randomUUID()}@example.com`
        yield* Effect.scoped(
          Effect.gen(function* () {
            const killed = yield* serve(dataDir)
            expect(yield* signUp(killed.baseUrl, ada)).toBe(200)
            const pid = killed.running.pid
            expect(pid).toBeDefined()
            if (pid !== undefined) process.kill(pid, "SIGKILL")
            yield* killed.running.exited
          })
        )
        yield* Effect.scoped(
          Effect.gen(function* () {
            const next = yield* serve(dataDir)
            expect(yield* signIn(next.baseUrl, ada)).toBe(200)
          })
        )
      }).pipe(Effect.scoped),
    { timeout: 180_000 }
  )
})
