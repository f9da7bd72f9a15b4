import { cpSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as CliProcess from "../../support/CliProcess.js"
import { freePort } from "../../support/FreePort.js"

/**
 * The built executable, copied with a hashing thread file of the test's own: the real one,
 * except that one password ends the thread that hashes it. So a thread crashes mid-request,
 * and then, its file gone, no thread can start: each costs its request a 503 with
 * `Retry-After`, the process goes on, and hashing resumes once the file is back.
 */

const crashingPassword = "crash the hashing thread"

let scope: Scope.CloseableScope
let running: CliProcess.Running
let baseUrl = ""
let threadFile = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const root = mkdtempSync(join(tmpdir(), "latchkey-hashing-e2e-"))
  await Effect.runPromise(
    Scope.addFinalizer(
      scope,
      Effect.sync(() => rmSync(root, { recursive: true, force: true }))
    )
  )
  const dist = dirname(dirname(CliProcess.cliPath))
  cpSync(dist, join(root, "dist"), { recursive: true })
  // The copy finds the dependencies and its module type as the build does in the checkout.
  symlinkSync(realpathSync(join(dist, "..", "node_modules")), join(root, "node_modules"))
  writeFileSync(join(root, "package.json"), JSON.stringify({ type: "module" }))
  threadFile = join(root, "dist/adapters/crypto/HashingThread.mjs")
  renameSync(threadFile, join(root, "dist/adapters/crypto/RealHashingThread.mjs"))
  writeFileSync(
    threadFile,
    [
      'import run from "./RealHashingThread.mjs"',
      "export default function (task) {",
      `  if (task.password === ${JSON.stringify(crashingPassword)}) process.exit(70)`,
      "  return run(task)",
      "}"
    ].join("\n")
  )

  const port = await Effect.runPromise(freePort)
  baseUrl = `http://127.0.0.1:${port}`
  running = await Effect.runPromise(
    Scope.extend(
      CliProcess.spawnCli(
        ["auth", "serve"],
        {
          LATCHKEY_DATA_DIR: join(root, "data"),
          AUTHSVC_API_HOST: "127.0.0.1",
          PORT: String(port),
          AUTHSVC_SITE_URL: "http://localhost:3000",
          AUTHSVC_API_EXTERNAL_URL: baseUrl,
          AUTHSVC_MAILER_AUTOCONFIRM: "true"
        },
        { cli: join(root, "dist/bootstrap/cli.js") }
      ),
      scope
    )
  )
  await Effect.runPromise(CliProcess.waitUntilAnswering(running, `${baseUrl}/health`))
}, 90_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const signUp = (password: string) =>
  fetch(`${baseUrl}/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `hashing-${crypto.randomUUID()}@example.com`, password })
  })

/** A 503 as the service answers any unavailability: Retry-After and Supabase Auth's error body. */
const expectUnavailable = async (response: Response) => {
  expect(response.status).toBe(503)
  expect(response.headers.get("retry-after")).toBe("5")
  expect(await response.json()).toMatchObject({ code: 503, error_code: "unexpected_failure" })
}

describe("a password hashing thread that fails", () => {
  it("costs the request a 503, not the process, and the next sign-up gets a new thread", async () => {
    await expectUnavailable(await signUp(crashingPassword))
    expect(running.hasExited()).toBe(false)
    expect((await signUp("correct horse battery staple")).status).toBe(200)
  })

  it("answers 503 while no thread can start, and recovers when the thread's file is back", async () => {
    // The one thread ends, and its file goes, as when `dist/` is rebuilt under the server.
    await expectUnavailable(await signUp(crashingPassword))
    const moved = `${threadFile}.away`
    renameSync(threadFile, moved)
    await expectUnavailable(await signUp("correct horse battery staple"))
    expect(running.hasExited()).toBe(false)
    expect(running.lines().some((line) => line.includes("password hashing thread failed"))).toBe(true)

    renameSync(moved, threadFile)
    expect((await signUp("correct horse battery staple")).status).toBe(200)
  })
})
