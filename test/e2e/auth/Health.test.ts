import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Server from "../../support/auth/AuthServerHarness.js"
import * as Healthcheck from "../../support/Healthcheck.js"
import * as RawHttp from "../../support/RawHttp.js"
import * as TcpProxy from "../../support/TcpProxy.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/** Supabase Auth's error body, which the auth service's own 503 has. */
const ErrorBody = Schema.Struct({ code: Schema.Number, error_code: Schema.String, msg: Schema.String })

const ask = (baseUrl: string, path: string) =>
  Effect.promise(() => RawHttp.send(baseUrl, { method: "GET", path }))

const expectUnavailable = (answer: RawHttp.Answer) => {
  expect(answer.status, answer.body).toBe(503)
  expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0)
  expect(answer.headers["cache-control"]).toBe("no-store")
  expect(Schema.decodeUnknownSync(ErrorBody)(JSON.parse(answer.body)).code).toBe(503)
}

describe("the auth service's readiness answer", () => {
  it.live("GET /health/ready (and under /auth/v1): the database answered", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* Server.start()
      for (const path of ["/health/ready", "/auth/v1/health/ready"]) {
        const ready = yield* ask(baseUrl, path)
        expect(ready.status, ready.body).toBe(200)
        expect(JSON.parse(ready.body)).toEqual({ status: "ready" })
      }
      const checked = yield* Healthcheck.run([`${baseUrl}/health/ready`])
      expect(checked.code, checked.output).toBe(0)
    }).pipe(Effect.scoped)
  )

  // Needs a PostgreSQL server: the embedded database cannot stand behind the proxy (see
  // test/e2e/oauth/DatabaseOutage.test.ts). CI sets TEST_DATABASE_URL, so it runs there.
  it.live.skipIf(TestDatabase.isEmbedded("server"))(
    "503 while the database is gone, GET /health 200 throughout, ready again once it is back",
    () =>
      Effect.gen(function* () {
        const fresh = yield* TestDatabase.freshUrl()
        if (Option.isNone(fresh)) return yield* Effect.dieMessage("no PostgreSQL server in the run")
        const database = new URL(fresh.value)
        const proxy = yield* TcpProxy.make({ host: database.hostname, port: Number(database.port || "5432") })
        const through = new URL(database)
        through.hostname = "127.0.0.1"
        through.port = String(proxy.port)
        const { baseUrl } = yield* Server.start({ databaseUrl: Option.some(through.toString()) })
        const readyUrl = `${baseUrl}/health/ready`
        expect((yield* ask(baseUrl, "/health/ready")).status).toBe(200)

        yield* proxy.stop
        expectUnavailable(yield* ask(baseUrl, "/health/ready"))
        expectUnavailable(yield* ask(baseUrl, "/auth/v1/health/ready"))
        expect((yield* ask(baseUrl, "/health")).status).toBe(200)
        const refused = yield* Healthcheck.run([readyUrl])
        expect(refused.code, refused.output).toBe(1)

        yield* proxy.start
        expect((yield* ask(baseUrl, "/health/ready")).status).toBe(200)
        expect((yield* Healthcheck.run([readyUrl])).code).toBe(0)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
