import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as SmtpCatcher from "../../support/auth/SmtpCatcher.js"
import * as CliProcess from "../../support/CliProcess.js"
import { freePort } from "../../support/FreePort.js"
import * as TcpProxy from "../../support/TcpProxy.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/**
 * Two instances of the built auth service on one PostgreSQL, each through a proxy that can take
 * the database away as a restart does, one mail server. Magic links are asked of both; then the
 * mail server stops, one instance is killed (`kill -9`) with mail leased to it, the database
 * restarts, the mail server comes back: every address gets its mail exactly once, the killed
 * instance's included, within its ten-second lease.
 */

const addresses = 60

const otp = (baseUrl: string, email: string) =>
  fetch(`${baseUrl}/otp`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, create_user: true })
  }).then((answer) => answer.status)

describe("mail under faults: two instances, a kill, a mail server outage, a database restart", () => {
  it.live.skipIf(TestDatabase.isEmbedded("server"))(
    "every address gets its mail exactly once",
    () =>
      Effect.gen(function* () {
        const database = new URL(Option.getOrThrow(yield* TestDatabase.freshUrl()))
        const catcher = yield* SmtpCatcher.start
        const instance = (name: string) =>
          Effect.gen(function* () {
            const proxy = yield* TcpProxy.make({
              host: database.hostname,
              port: Number(database.port || "5432")
            })
            const through = new URL(database.href)
            through.hostname = "127.0.0.1"
            through.port = String(proxy.port)
            const port = yield* freePort
            const dataDir = mkdtempSync(join(tmpdir(), `latchkey-faults-${name}-`))
            yield* Effect.addFinalizer(() =>
              Effect.sync(() => rmSync(dataDir, { recursive: true, force: true }))
            )
            const baseUrl = `http://127.0.0.1:${port}`
            const service = yield* CliProcess.spawnCli(["auth", "serve"], {
              LATCHKEY_DATA_DIR: dataDir,
              DATABASE_URL: through.href,
              AUTHSVC_API_HOST: "127.0.0.1",
              PORT: String(port),
              AUTHSVC_SITE_URL: "http://localhost:3000",
              AUTHSVC_API_EXTERNAL_URL: baseUrl,
              AUTHSVC_SMTP_HOST: "127.0.0.1",
              AUTHSVC_SMTP_PORT: String(catcher.port),
              AUTHSVC_SMTP_ADMIN_EMAIL: "auth@example.com",
              AUTHSVC_RATE_LIMIT_OTP: "1000000",
              AUTHSVC_RATE_LIMIT_EMAIL_SENT: "1000000"
            })
            yield* CliProcess.waitUntilAnswering(service, `${baseUrl}/health`)
            return { baseUrl, service, proxy }
          })
        const first = yield* instance("first")
        const second = yield* instance("second")

        // The mail server is down while both instances take the requests: their workers claim the
        // mail, fail, and keep it for the next try.
        yield* catcher.down
        const emails = Array.from(
          { length: addresses },
          (_, n) => `faults-${n}-${crypto.randomUUID()}@example.com`
        )
        const statuses = yield* Effect.promise(() =>
          Promise.all(emails.map((email, n) => otp(n % 2 === 0 ? first.baseUrl : second.baseUrl, email)))
        )
        expect(statuses.filter((status) => status !== 200)).toEqual([])

        // One instance is killed outright; the database restarts under the other.
        process.kill(first.service.pid ?? 0, "SIGKILL")
        yield* first.service.exited
        yield* second.proxy.stop
        yield* catcher.up
        yield* Effect.sleep(Duration.seconds(2))
        yield* second.proxy.start

        // Everything is delivered by the instance left, the killed one's mail once its lease ends.
        const delivered = Effect.suspend(() => {
          const got = new Set(catcher.caught.flatMap((entry) => entry.to))
          return emails.every((email) => got.has(email)) ? Effect.void : Effect.fail("not yet")
        })
        yield* delivered.pipe(
          Effect.retry(Schedule.spaced(Duration.millis(250)).pipe(Schedule.upTo(Duration.seconds(90)))),
          Effect.orElse(() => Effect.dieMessage("not every mail arrived within 90 s"))
        )
        // Past another lease and a few passes: nothing more arrives.
        yield* Effect.sleep(Duration.seconds(12))
        const counts = new Map<string, number>()
        for (const entry of catcher.caught)
          for (const to of entry.to) counts.set(to, (counts.get(to) ?? 0) + 1)
        expect(emails.filter((email) => counts.get(email) !== 1)).toEqual([])
      }).pipe(Effect.scoped),
    180_000
  )
})
