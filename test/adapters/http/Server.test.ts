import { describe, expect, it } from "@effect/vitest"
import { SpanKind } from "@opentelemetry/api"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Cookies from "../../../adapters/http/Cookies.js"
import type * as Cors from "../../../adapters/http/Cors.js"
import * as HttpMessage from "../../../adapters/http/HttpMessage.js"
import type { Problems } from "../../../adapters/http/Problems.js"
import * as Route from "../../../adapters/http/Route.js"
import * as Server from "../../../adapters/http/Server.js"
import * as OpenTelemetry from "../../../adapters/telemetry/OpenTelemetry.js"
import { freePort } from "../../support/FreePort.js"

const problem = (status: number, code: string) => HttpMessage.json({ code }, status)

/** A protocol of its own, so that every answer shows which entry of the table it came from. */
const problems: Problems = {
  notFound: problem(404, "not_found"),
  methodNotAllowed: problem(405, "method"),
  badRequest: (description) => HttpMessage.json({ code: "bad", description }, 400),
  unsupportedMediaType: () => problem(415, "media"),
  tooLarge: () => problem(413, "large"),
  headersTooLarge: problem(431, "headers"),
  unavailable: (_, retryAfter) =>
    HttpMessage.json({ code: "unavailable" }, 503, { "retry-after": String(retryAfter) }),
  internal: (requestId) => HttpMessage.json({ code: "internal", requestId }, 500)
}

class DatabaseDown extends Error {}

const routes = (gate: Deferred.Deferred<void>, arrived: Deferred.Deferred<void>) => [
  Route.make("GET", "/items/{item_id}", (request) =>
    Effect.succeed(
      HttpMessage.json({ id: request.params.item_id, ip: request.clientIp, requestId: request.requestId })
    )
  ),
  Route.make("POST", "/items", (request) => Effect.succeed(HttpMessage.json({ body: request.body }, 201)), {
    accepts: ["application/json"],
    cors: true
  }),
  Route.make("GET", "/broken", () => Effect.die(new Error("a defect"))),
  Route.make("GET", "/database", () => Effect.die(new DatabaseDown("gone"))),
  Route.make("GET", "/slow", () =>
    Deferred.succeed(arrived, undefined).pipe(
      Effect.zipRight(Deferred.await(gate)),
      Effect.as(HttpMessage.json({ done: true }))
    )
  ),
  Route.make("GET", "/page/{name}", (request) =>
    Effect.succeed(
      Cookies.set(
        Cookies.set(
          HttpMessage.html(
            `page ${request.params.name ?? ""} ${Option.getOrElse(Cookies.read(request, "seen"), () => "new")}`,
            200
          ),
          "seen",
          "yes",
          { path: "/page", httpOnly: true }
        ),
        "other",
        "two",
        { path: "/" }
      )
    )
  )
]

const start = (options: { readonly spans?: InMemorySpanExporter; readonly cors?: Cors.CorsPolicy } = {}) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const gate = yield* Deferred.make<void>()
    const arrived = yield* Deferred.make<void>()
    const serve = Server.serve({
      service: "test",
      host: "127.0.0.1",
      port,
      routes: routes(gate, arrived),
      problems,
      cors: options.cors ?? {
        origin: "any",
        scope: "routes",
        allowHeaders: ["Content-Type"],
        exposeHeaders: [],
        maxAgeSeconds: 60
      },
      maxBodyBytes: 1024,
      requestIdHeader: Option.some("X-Trace-Id"),
      clientIpHeaders: ["X-Edge-Ip", "X-Client-Ip"],
      metrics: false,
      shutdownTimeout: "2 seconds",
      isUnavailable: (defect) => defect instanceof DatabaseDown
    })
    const tracing =
      options.spans === undefined
        ? Layer.setTracerEnabled(false)
        : OpenTelemetry.tracing({
            serviceName: "test",
            version: "0",
            spanProcessor: new SimpleSpanProcessor(options.spans)
          })
    const scope = yield* Effect.scope
    yield* Layer.buildWithScope(Layer.scopedDiscard(serve).pipe(Layer.provide(tracing)), scope)
    return { base: `http://127.0.0.1:${port}`, gate, arrived }
  })

describe("the HTTP server", () => {
  it.scoped("matches route templates, decodes their parameters, and answers 404 and 405 with Allow", () =>
    Effect.gen(function* () {
      const { base } = yield* start()
      const found = yield* Effect.promise(() => fetch(`${base}/items/a%20b`))
      expect(yield* Effect.promise(() => found.json())).toMatchObject({ id: "a b", ip: "127.0.0.1" })
      const unknown = yield* Effect.promise(() => fetch(`${base}/items/a/b`))
      expect(unknown.status).toBe(404)
      const wrongMethod = yield* Effect.promise(() => fetch(`${base}/items/1`, { method: "DELETE" }))
      expect(wrongMethod.status).toBe(405)
      expect(wrongMethod.headers.get("allow")).toBe("GET, OPTIONS")
      const head = yield* Effect.promise(() => fetch(`${base}/items/1`, { method: "HEAD" }))
      expect(head.status).toBe(200)
      expect(yield* Effect.promise(() => head.text())).toBe("")
    })
  )

  it.scoped(
    "inherits a usable request id, echoes it, and takes the client address from the trusted header",
    () =>
      Effect.gen(function* () {
        const { base } = yield* start()
        const inherited = yield* Effect.promise(() =>
          fetch(`${base}/items/1`, {
            headers: { "x-trace-id": "edge-7", "x-client-ip": "203.0.113.9, 10.0.0.1" }
          })
        )
        expect(inherited.headers.get("x-trace-id")).toBe("edge-7")
        expect(yield* Effect.promise(() => inherited.json())).toMatchObject({
          requestId: "edge-7",
          ip: "203.0.113.9"
        })
        const made = yield* Effect.promise(() =>
          fetch(`${base}/items/1`, { headers: { "x-trace-id": "x".repeat(300) } })
        )
        expect(made.headers.get("x-trace-id")).toMatch(/^[0-9a-f-]{36}$/)
        // The header's first entry is the client's to write: an address with a port is taken
        // without it, and what is no address at all leaves the peer's address in its place.
        const ipFor = (header: string) =>
          Effect.promise(() =>
            fetch(`${base}/items/1`, { headers: { "x-client-ip": header } }).then(
              (response): Promise<unknown> => response.json()
            )
          )
        expect(yield* ipFor("203.0.113.9:8080")).toMatchObject({ ip: "203.0.113.9" })
        expect(yield* ipFor("[2001:db8::1]:443, 10.0.0.1")).toMatchObject({ ip: "2001:db8::1" })
        expect(yield* ipFor("fe80::1%eth0")).toMatchObject({ ip: "fe80::1" })
        for (const garbage of ["unknown", "1.2.3.4.5", "<script>", "[nope]:1", "2001:db8::1:99999x"]) {
          expect(yield* ipFor(garbage)).toMatchObject({ ip: "127.0.0.1" })
        }
        // Headers are read in their order: the first that holds an address wins.
        const ipFrom = (headers: Record<string, string>) =>
          Effect.promise(() =>
            fetch(`${base}/items/1`, { headers }).then((response): Promise<unknown> => response.json())
          )
        expect(yield* ipFrom({ "x-edge-ip": "198.51.100.7", "x-client-ip": "203.0.113.9" })).toMatchObject({
          ip: "198.51.100.7"
        })
        expect(yield* ipFrom({ "x-edge-ip": "unknown", "x-client-ip": "203.0.113.9" })).toMatchObject({
          ip: "203.0.113.9"
        })
      })
  )

  it.scoped("checks media types and body sizes before a route runs", () =>
    Effect.gen(function* () {
      const { base } = yield* start()
      const post = (body: string, type: string) =>
        Effect.promise(() =>
          fetch(`${base}/items`, { method: "POST", headers: { "content-type": type }, body })
        )
      expect((yield* post("{}", "application/json; charset=utf-8")).status).toBe(201)
      expect((yield* post("{}", "text/plain")).status).toBe(415)
      expect((yield* post("x".repeat(2048), "application/json")).status).toBe(413)
      const nul = yield* Effect.promise(() => fetch(`${base}/items/1?q=a%00b`))
      expect(nul.status).toBe(400)
      const nulInPath = yield* Effect.promise(() => fetch(`${base}/items/a%00b`))
      expect(nulInPath.status).toBe(400)
      expect(yield* Effect.promise(() => nulInPath.text())).toContain("the path holds a NUL character")
    })
  )

  it.scoped("answers CORS preflights for routes that allow them, and reflects the origin when asked to", () =>
    Effect.gen(function* () {
      const { base } = yield* start({
        cors: {
          origin: "reflect",
          scope: "routes",
          allowHeaders: ["Authorization"],
          exposeHeaders: ["X-Total-Count"],
          maxAgeSeconds: 60
        }
      })
      const preflight = yield* Effect.promise(() =>
        fetch(`${base}/items`, { method: "OPTIONS", headers: { origin: "https://app.example" } })
      )
      expect(preflight.status).toBe(204)
      expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example")
      expect(preflight.headers.get("access-control-allow-credentials")).toBe("true")
      expect(preflight.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS")
      expect(preflight.headers.get("access-control-expose-headers")).toBe("X-Total-Count")
      // A route without CORS gets no CORS headers, nor does the server's own 404.
      const plain = yield* Effect.promise(() =>
        fetch(`${base}/items/1`, { headers: { origin: "https://app.example" } })
      )
      expect(plain.headers.get("access-control-allow-origin")).toBeNull()
      const unknown = yield* Effect.promise(() =>
        fetch(`${base}/nowhere`, {
          method: "OPTIONS",
          headers: { origin: "https://app.example", "access-control-request-method": "GET" }
        })
      )
      expect([unknown.status, unknown.headers.get("access-control-allow-origin")]).toEqual([404, null])
    })
  )

  it.scoped("with the policy on every answer: the server's own answers and every preflight carry CORS", () =>
    Effect.gen(function* () {
      const { base } = yield* start({
        cors: {
          origin: "any",
          scope: "every answer",
          allowHeaders: ["Authorization"],
          exposeHeaders: ["X-Total-Count"],
          maxAgeSeconds: 60
        }
      })
      const origin = { origin: "https://app.example" }
      const corsOf = (response: Response) => [
        response.status,
        response.headers.get("access-control-allow-origin"),
        response.headers.get("access-control-expose-headers")
      ]
      const cross = (path: string, init: RequestInit = {}) =>
        Effect.promise(() => fetch(`${base}${path}`, { ...init, headers: { ...origin, ...init.headers } }))
      // A route not marked for CORS, the 404 of an unknown path, a 405, a 413 and a 500.
      expect(corsOf(yield* cross("/items/1"))).toEqual([200, "*", "X-Total-Count"])
      expect(corsOf(yield* cross("/nowhere"))).toEqual([404, "*", "X-Total-Count"])
      expect(corsOf(yield* cross("/items", { method: "DELETE" }))).toEqual([405, "*", "X-Total-Count"])
      const large = yield* cross("/items", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ padding: "x".repeat(2048) })
      })
      expect(corsOf(large)).toEqual([413, "*", "X-Total-Count"])
      expect(corsOf(yield* cross("/broken"))).toEqual([500, "*", "X-Total-Count"])
      // A preflight to any path succeeds, so that the browser goes on to show the 404 itself;
      // an OPTIONS that is no preflight still finds nothing there.
      const preflight = yield* cross("/nowhere", {
        method: "OPTIONS",
        headers: { "access-control-request-method": "PUT", "access-control-request-headers": "authorization" }
      })
      expect(corsOf(preflight)).toEqual([204, "*", "X-Total-Count"])
      expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, POST, PUT, PATCH, DELETE")
      expect(preflight.headers.get("access-control-allow-headers")).toBe("Authorization")
      expect((yield* cross("/nowhere", { method: "OPTIONS" })).status).toBe(404)
      const known = yield* cross("/items/1", {
        method: "OPTIONS",
        headers: { "access-control-request-method": "GET" }
      })
      expect([known.status, known.headers.get("access-control-allow-methods")]).toEqual([204, "GET, OPTIONS"])
    })
  )

  it.scoped(
    "turns a defect into the protocol's 500 with the request id, and an unavailable database into 503",
    () =>
      Effect.gen(function* () {
        const { base } = yield* start()
        const broken = yield* Effect.promise(() =>
          fetch(`${base}/broken`, { headers: { "x-trace-id": "r-500" } })
        )
        expect(broken.status).toBe(500)
        expect(yield* Effect.promise(() => broken.json())).toEqual({ code: "internal", requestId: "r-500" })
        const down = yield* Effect.promise(() => fetch(`${base}/database`))
        expect(down.status).toBe(503)
        expect(down.headers.get("retry-after")).toBe("5")
      })
  )

  it.scoped("names each request's span by its route, with the route's parameters", () =>
    Effect.gen(function* () {
      const spans = new InMemorySpanExporter()
      const { base } = yield* start({ spans })
      yield* Effect.promise(() => fetch(`${base}/items/42`, { headers: { "x-trace-id": "t-1" } }))
      yield* Effect.promise(() => fetch(`${base}/page/home`))
      const item = spans.getFinishedSpans().find((span) => span.name === "GET /items/{item_id}")
      expect(item?.attributes).toMatchObject({
        "http.method": "GET",
        "http.route": "/items/{item_id}",
        "http.route.params.item_id": "42",
        "http.status_code": 200,
        request_id: "t-1"
      })
      const page = spans.getFinishedSpans().find((span) => span.name === "GET /page/{name}")
      expect(page?.attributes["http.route.params.name"]).toBe("home")
      // One span a request, ours: nothing records the full URL, whose query may carry codes.
      expect(spans.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER)).toHaveLength(2)
    })
  )

  it.scoped("reads the request's cookies and sets several on the response", () =>
    Effect.gen(function* () {
      const { base } = yield* start()
      const first = yield* Effect.promise(() => fetch(`${base}/page/home`))
      expect(yield* Effect.promise(() => first.text())).toBe("page home new")
      expect(first.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(first.headers.getSetCookie()).toEqual(["seen=yes; Path=/page; HttpOnly", "other=two; Path=/"])
      const again = yield* Effect.promise(() =>
        fetch(`${base}/page/home`, { headers: { cookie: "other=two; seen=yes" } })
      )
      expect(yield* Effect.promise(() => again.text())).toBe("page home yes")
    })
  )

  it.effect("lets a request in flight finish when it shuts down, then refuses new connections", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { base, gate, arrived } = yield* start().pipe(Effect.provideService(Scope.Scope, scope))
      const inFlight = fetch(`${base}/slow`)
      yield* Deferred.await(arrived)
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      // Shutdown has begun once new connections are refused; only then is the gate opened.
      const refusedYet = Effect.promise(() =>
        fetch(`${base}/items/1`).then(
          () => false,
          () => true
        )
      )
      yield* refusedYet.pipe(Effect.repeat({ until: (refused) => refused }))
      yield* Deferred.succeed(gate, undefined)
      const answered = yield* Effect.promise(() => inFlight)
      expect(answered.status).toBe(200)
      expect(yield* Effect.promise(() => answered.json())).toEqual({ done: true })
      yield* closing.await
      expect(yield* refusedYet).toBe(true)
    })
  )
})
