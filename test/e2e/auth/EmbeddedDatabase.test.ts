import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as CliProcess from "../../support/CliProcess.js"
import { freePort } from "../../support/FreePort.js"

/**
 * The built executable on its embedded database (no DATABASE_URL), as `npm start` runs it, with
 * the pool's idle period made short (`AUTHSVC_DB_CONN_MAX_IDLE_TIME`): the pool closes its one
 * connection between two sign-ins and opens another, while the database keeps its one session.
 */

let scope: Scope.CloseableScope
let baseUrl = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const dataDir = mkdtempSync(join(tmpdir(), "latchkey-embedded-e2e-"))
  const port = await Effect.runPromise(freePort)
  baseUrl = `http://127.0.0.1:${port}`
  const running = await Effect.runPromise(
    Scope.extend(
      CliProcess.spawnCli(["auth", "serve"], {
        LATCHKEY_DATA_DIR: dataDir,
        AUTHSVC_API_HOST: "127.0.0.1",
        PORT: String(port),
        AUTHSVC_SITE_URL: "http://localhost:3000",
        AUTHSVC_API_EXTERNAL_URL: baseUrl,
        AUTHSVC_MAILER_AUTOCONFIRM: "true",
        AUTHSVC_DB_CONN_MAX_IDLE_TIME: "200ms"
      }),
      scope
    )
  )
  await Effect.runPromise(
    Scope.addFinalizer(
      scope,
      Effect.sync(() => rmSync(dataDir, { recursive: true, force: true }))
    )
  )
  await Effect.runPromise(CliProcess.waitUntilAnswering(running, `${baseUrl}/health`))
}, 90_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const post = (path: string, body: unknown) =>
  fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })

const idle = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

describe("the embedded database left idle", () => {
  it("answers a sign-in after the pool closed its idle connection, as before it", async () => {
    const email = `idle-${crypto.randomUUID()}@example.com`
    const password = "correct horse battery staple"
    expect((await post("/signup", { email, password })).status).toBe(200)
    const first = await post("/token?grant_type=password", { email, password })
    expect(first.status).toBe(200)
    // Past the idle period: the next statements run on a new connection to the same session.
    await idle(1_000)
    const second = await post("/token?grant_type=password", { email, password })
    expect(second.status).toBe(200)
    const refreshed = await post("/token?grant_type=refresh_token", {
      refresh_token: ((await second.json()) as { refresh_token: string }).refresh_token
    })
    expect(refreshed.status).toBe(200)
    await idle(1_000)
    // A wrong password still answers as Supabase Auth does, not with a 500.
    const wrong = await post("/token?grant_type=password", { email, password: "not the password" })
    expect(wrong.status).toBe(400)
  })
})
