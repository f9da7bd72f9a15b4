import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { SpanKind } from "@opentelemetry/api"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import { freePort } from "../../support/FreePort.js"
import * as Browser from "../../support/oauth/OAuthBrowser.js"
import * as Server from "../support/InProcessOAuth.js"

const redirectUri = "http://127.0.0.1:41000/callback"

/** Every secret latchkey hands out carries a prefix (domain/TokenKind.ts): none may leak. */
const issuedSecret = /lk[a-z]_[A-Za-z0-9_-]{16,}/

const tempFile = (name: string) =>
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "latchkey-telemetry-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => join(dir, name)))

const logLines = (file: string): Array<Record<string, unknown>> =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const parsed: unknown = JSON.parse(line)
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(line)
      return Object.fromEntries(Object.entries(parsed))
    })

/** A public client's whole life over HTTP: registration, login, code, refresh, introspection, revocation. */
const fullFlow = async (baseUrl: string) => {
  const clientId = await Browser.registerClient(baseUrl, [redirectUri])
  const grant = await Browser.codeFor(baseUrl, clientId, redirectUri)
  const tokens = await Browser.tokensOf(await Browser.exchange(baseUrl, clientId, redirectUri, grant))
  const refreshed = await Browser.tokensOf(
    await Browser.form(baseUrl, "/token", {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: tokens.refresh_token ?? ""
    })
  )
  await Browser.form(
    baseUrl,
    "/introspect",
    { token: refreshed.access_token },
    { authorization: `Bearer ${Server.introspectionToken}` }
  )
  await Browser.form(baseUrl, "/revoke", { token: refreshed.access_token, client_id: clientId })
  return {
    clientId,
    secrets: [
      grant.code,
      grant.verifier,
      tokens.access_token,
      tokens.refresh_token ?? "",
      refreshed.access_token,
      refreshed.refresh_token ?? "",
      Server.introspectionToken
    ]
  }
}

const attributesOf = (span: ReadableSpan) =>
  Object.entries(span.attributes).map(([key, value]) => `${key}=${String(value)}`)

describe("telemetry of the oauth service", () => {
  it.live(
    "one server span per request, named by its route, with the route, method, status and request id; use cases are its children; no secret anywhere",
    () =>
      Effect.gen(function* () {
        const exporter = new InMemorySpanExporter()
        const logFile = yield* tempFile("oauth.log")
        const { baseUrl } = yield* Server.start({
          env: { TRACING_ENABLED: "true", LOG_LEVEL: "debug", LOG_FILE: logFile },
          spanProcessor: new SimpleSpanProcessor(exporter)
        })
        const { secrets } = yield* Effect.promise(() => fullFlow(baseUrl))
        const spans = exporter.getFinishedSpans()

        const register = spans.find((span) => span.name === "POST /register")
        expect(register?.kind).toBe(SpanKind.SERVER)
        expect(register?.attributes["http.method"]).toBe("POST")
        expect(register?.attributes["http.route"]).toBe("/register")
        expect(register?.attributes["http.status_code"]).toBe(201)
        expect(String(register?.attributes.request_id)).toMatch(/^[0-9a-f-]{36}$/)
        const useCase = spans.find((span) => span.name === "Register.register")
        expect(useCase?.parentSpanContext?.spanId).toBe(register?.spanContext().spanId)
        expect(useCase?.spanContext().traceId).toBe(register?.spanContext().traceId)

        // A browser page (authorize) is traced the same way.
        const authorize = spans.find((span) => span.name === "GET /")
        expect(authorize?.attributes["http.route"]).toBe("/")
        expect(authorize?.attributes["http.status_code"]).toBe(302)
        expect(spans.some((span) => span.name === "Authorize.authorize")).toBe(true)
        const refresh = spans.find(
          (span) => span.name === "Refresh.refresh" && span.attributes["client.id"] !== undefined
        )
        expect(refresh).toBeDefined()

        const everything = spans.flatMap((span) => [span.name, ...attributesOf(span)]).join("\n")
        for (const secret of secrets) expect(everything).not.toContain(secret)
        expect(everything).not.toMatch(issuedSecret)

        const log = readFileSync(logFile, "utf8")
        for (const secret of secrets) expect(log).not.toContain(secret)
        expect(log).not.toMatch(issuedSecret)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "JSON log lines carry level, time, message, request id, route and the ids learned; an incoming request id is kept and echoed",
    () =>
      Effect.gen(function* () {
        const logFile = yield* tempFile("oauth.log")
        const { baseUrl } = yield* Server.start({
          env: { LOG_LEVEL: "info", LOG_FILE: logFile, REQUEST_ID_HEADER: "X-Request-Id" }
        })
        const inherited = yield* Effect.promise(() =>
          fetch(`${baseUrl}/register`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-request-id": "req-from-the-proxy-42" },
            body: JSON.stringify({ redirect_uris: [redirectUri] })
          })
        )
        expect(inherited.status).toBe(201)
        expect(inherited.headers.get("x-request-id")).toBe("req-from-the-proxy-42")
        const made = yield* Effect.promise(() => fetch(`${baseUrl}/.well-known/oauth-authorization-server`))
        const madeId = made.headers.get("x-request-id") ?? ""
        expect(madeId).toMatch(/^[0-9a-f-]{36}$/)
        // An unusable incoming id (spaces, too long) is replaced, not echoed.
        const refused = yield* Effect.promise(() =>
          fetch(`${baseUrl}/.well-known/oauth-authorization-server`, { headers: { "x-request-id": "a b" } })
        )
        expect(refused.headers.get("x-request-id")).not.toBe("a b")

        const lines = logLines(logFile)
        const access = lines.find((line) => line.request_id === "req-from-the-proxy-42")
        expect(access).toMatchObject({
          level: "info",
          msg: "request completed",
          route: "/register",
          method: "POST",
          status: "201"
        })
        expect(typeof access?.time).toBe("string")
        expect(Number.isNaN(Date.parse(String(access?.time)))).toBe(false)
        expect(
          lines.some(
            (line) => line.request_id === madeId && line.route === "/.well-known/oauth-authorization-server"
          )
        ).toBe(true)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "with the Prometheus exporter, the request histogram, the domain counters, Node's runtime and the pool are scraped",
    () =>
      Effect.gen(function* () {
        const metricsPort = yield* freePort
        const { baseUrl } = yield* Server.start({
          env: {
            METRICS_ENABLED: "true",
            METRICS_EXPORTER: "prometheus",
            OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
            OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort)
          }
        })
        const scrape = () =>
          Effect.promise(() => fetch(`http://127.0.0.1:${metricsPort}/`).then((r) => r.text()))
        /** The value of the first sample whose line matches; metrics are per process, so tests compare deltas. */
        const valueIn = (scraped: string, pattern: RegExp) =>
          Number(
            scraped
              .split("\n")
              .find((line) => pattern.test(line))
              ?.split(" ")
              .pop() ?? "0"
          )
        const registerBuckets =
          /^http_server_request_duration(_seconds)?_bucket\{.*http_route="\/register".*http_method="POST".*http_status_code="201".*le="\+Inf"/
        const registrations = /^latchkey_oauth_registrations(_total)?\b/
        const before = yield* scrape()
        yield* Effect.promise(async () => {
          for (let i = 0; i < 3; i++) await Browser.registerClient(baseUrl, [redirectUri])
          await Browser.form(baseUrl, "/token", {
            grant_type: "refresh_token",
            client_id: "cli",
            refresh_token: "x"
          })
          await fetch(`${baseUrl}/.well-known/oauth-authorization-server`)
        })
        const scraped = yield* scrape()
        const sample = (pattern: RegExp) => scraped.split("\n").find((line) => pattern.test(line))
        expect(sample(registerBuckets)).toBeDefined()
        expect(valueIn(scraped, registerBuckets) - valueIn(before, registerBuckets)).toBe(3)
        expect(
          sample(
            /^http_server_request_duration(_seconds)?_count\{.*http_route="\/token".*http_status_code="400"/
          )
        ).toBeDefined()
        expect(valueIn(scraped, registrations) - valueIn(before, registrations)).toBe(3)
        expect(sample(/^nodejs_eventloop_delay/)).toBeDefined()
        expect(sample(/^v8js_memory_heap_used/)).toBeDefined()
        expect(sample(/^process_cpu_time/)).toBeDefined()
        expect(sample(/^db_client_connection_count\{.*db_client_connection_state="idle"/)).toBeDefined()
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
