import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliProcess from "../../support/CliProcess.js"
import { freePort } from "../../support/FreePort.js"
import * as PgBouncer from "../../support/PgBouncer.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/**
 * The built auth service behind PgBouncer in transaction mode with AUTHSVC_DB_PREPARED_STATEMENTS
 * off: 40 users signing up, reading /user and refreshing at once, every answer what one alone
 * gets. With named statements, statements prepared on one server connection were executed on
 * another (`prepared statement ... does not exist` / `already exists`: 500s).
 */

const users = 40
const password = "correct horse battery staple"

const post = (baseUrl: string, path: string, body: unknown) =>
  fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })

const Session = (value: unknown) => {
  if (
    typeof value !== "object" ||
    value === null ||
    !("access_token" in value) ||
    !("refresh_token" in value)
  )
    throw new Error(`not a session: ${JSON.stringify(value)}`)
  return { access: String(value.access_token), refresh: String(value.refresh_token) }
}

/** One user's round: sign up, read the user, refresh, read again; the statuses in order. */
const round = async (baseUrl: string) => {
  const email = `pooled-${crypto.randomUUID()}@example.com`
  const signedUp = await post(baseUrl, "/signup", { email, password })
  const session = Session(await signedUp.json())
  const user = await fetch(`${baseUrl}/user`, { headers: { authorization: `Bearer ${session.access}` } })
  const refreshed = await post(baseUrl, "/token?grant_type=refresh_token", { refresh_token: session.refresh })
  const next = Session(await refreshed.json())
  const again = await fetch(`${baseUrl}/user`, { headers: { authorization: `Bearer ${next.access}` } })
  return [signedUp.status, user.status, refreshed.status, again.status]
}

describe("the auth service behind a transaction-mode pooler", () => {
  it.live.skipIf(TestDatabase.isEmbedded("server"))(
    "answers 40 users signing up, reading /user and refreshing at once, through PgBouncer",
    () =>
      Effect.gen(function* () {
        const database = Option.getOrThrow(yield* TestDatabase.freshUrl())
        const pooled = yield* PgBouncer.inFrontOf(new URL(database))
        const port = yield* freePort
        const dataDir = mkdtempSync(join(tmpdir(), "latchkey-pooler-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
        const baseUrl = `http://127.0.0.1:${port}`
        const service = yield* CliProcess.spawnCli(["auth", "serve"], {
          LATCHKEY_DATA_DIR: dataDir,
          DATABASE_URL: pooled.href,
          AUTHSVC_DB_PREPARED_STATEMENTS: "false",
          AUTHSVC_DB_MAX_POOL_SIZE: "20",
          AUTHSVC_API_HOST: "127.0.0.1",
          PORT: String(port),
          AUTHSVC_SITE_URL: "http://localhost:3000",
          AUTHSVC_API_EXTERNAL_URL: baseUrl,
          AUTHSVC_MAILER_AUTOCONFIRM: "true",
          AUTHSVC_RATE_LIMIT_OTP: "1000000",
          AUTHSVC_RATE_LIMIT_TOKEN_REFRESH: "1000000"
        })
        yield* CliProcess.waitUntilAnswering(service, `${baseUrl}/health`)
        for (let pass = 0; pass < 2; pass++) {
          const statuses = yield* Effect.promise(() =>
            Promise.all(Array.from({ length: users }, () => round(baseUrl)))
          )
          expect(statuses.flat().filter((status) => status !== 200)).toEqual([])
        }
        expect(service.lines().filter((line) => line.includes('"level":"error"'))).toEqual([])
      }).pipe(Effect.scoped),
    120_000
  )
})
