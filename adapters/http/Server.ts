import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { isIP, type Socket } from "node:net"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import type * as Tracer from "effect/Tracer"
import * as Telemetry from "../../application/Telemetry.js"
import * as Body from "./Body.js"
import * as Connection from "./Connection.js"
import * as Cors from "./Cors.js"
import { type HttpRequest, type HttpResponse, mediaType } from "./HttpMessage.js"
import * as HttpMetrics from "./HttpMetrics.js"
import * as Listen from "./Listen.js"
import type { Problems } from "./Problems.js"
import type { Route } from "./Route.js"
import * as Router from "./Router.js"

export interface ServerOptions<R> {
  /** The service, as log lines name it. */
  readonly service: string
  readonly host: string
  readonly port: number
  /** The variables that set the port, for the line that says it is taken (Listen.Address). */
  readonly portVariables?: string | undefined
  readonly routes: ReadonlyArray<Route<R>>
  readonly problems: Problems
  readonly cors: Cors.CorsPolicy
  readonly maxBodyBytes: number
  /** The request line and headers together, beyond which Node answers 431 (unset: Node's 16 KiB). */
  readonly maxHeaderBytes?: number
  /** `REQUEST_ID_HEADER`: an incoming header whose value becomes the request id. */
  readonly requestIdHeader: Option.Option<string>
  /**
   * Headers set by trusted proxies that carry the client's address (first value), in the order
   * they are read: the first that holds an address wins, else the socket's. A value too long to
   * be an address is ignored, as is an empty one.
   */
  readonly clientIpHeaders: ReadonlyArray<string>
  /** Whether to record request metrics (`METRICS_ENABLED`). */
  readonly metrics: boolean
  /** How long requests in flight may take to finish once shutdown starts. */
  readonly shutdownTimeout: Duration.DurationInput
  /** Does this defect mean a dependency (the database) is briefly out of reach? Then 503. */
  readonly isUnavailable: (defect: unknown) => boolean
}

/** How long a client is asked to wait after a 503. */
export const retryAfterSeconds = 5

const acceptableRequestId = /^[\x21-\x7e]{1,200}$/

/**
 * The longest client address the client-address header may name: an IPv6 address with a zone,
 * in brackets, with a port. Anything longer is no address; it would become a rate-limit key
 * (Register.ts), and PostgreSQL cannot index a key of a few kilobytes.
 */
const maxAddressLength = 100

/**
 * The address an entry of the client-address header names: a bare IP, or one with a port
 * (`203.0.113.9:8080`, `[2001:db8::1]:443`), its zone left off; undefined for anything else.
 * The first entry of `X-Forwarded-For` is whatever the client sent, and the auth service keeps
 * the address on the session in an `inet` column, which would refuse the request's sign-in.
 */
const addressIn = (entry: string): string | undefined => {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(entry)
  const withPort = /^([\d.]+):\d{1,5}$/.exec(entry)
  const candidate = (bracketed?.[1] ?? withPort?.[1] ?? entry).split("%")[0] ?? ""
  return isIP(candidate) === 0 ? undefined : candidate
}

/**
 * The request target in origin form (`/path?query`). A client may send the absolute form
 * (`http://host/path?query`), which a server must accept (RFC 9112 §3.2.2): its scheme and
 * authority are dropped, the Host header having named the same origin.
 */
const originForm = (target: string) => {
  if (target.startsWith("/")) return target
  const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/.exec(target)
  if (authority === null) return target
  const rest = target.slice(authority[0].length)
  return rest.startsWith("/") ? rest : `/${rest}`
}

const pathAndQuery = (target: string) => {
  const url = originForm(target)
  const mark = url.indexOf("?")
  return mark < 0 ? { path: url, query: "" } : { path: url.slice(0, mark), query: url.slice(mark + 1) }
}

/** What the server knows of a request before a route runs. */
interface Served {
  readonly started: number
  readonly method: string
  readonly route: string | undefined
  readonly requestId: string
  readonly facts: Telemetry.Facts
  readonly spanAttributes: Record<string, unknown>
}

/**
 * The HTTP server of both services, on node:http. It owns, once for every route: the route
 * match (404, 405, `Allow`), body size limits (413, also while a chunked body arrives),
 * content-type checks, text a database can store (no NUL, no broken JSON), CORS and its
 * preflights (on the marked routes, or on every answer, as the service's policy says), request ids (inherited from `REQUEST_ID_HEADER`, else made; echoed; in every log
 * line and span), the client address, one server span per request named by its route, request
 * metrics, the access log, the 500 and 503 bodies, and graceful shutdown.
 *
 * Routes answer a plain request with a plain response, without a framework's per-request
 * wrappers (docs/decisions/0005-hot-path.md).
 */
export const serve = <R>(options: ServerOptions<R>) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<R>()
    const run = Runtime.runCallback(runtime)
    const tracing = FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentTracerEnabled)
    const { problems, cors } = options
    const router = Router.make(
      options.routes.map((route) => ({ method: route.method, path: route.path, value: route }))
    )
    const requestIdName = Option.getOrUndefined(
      Option.map(options.requestIdHeader, (name) => name.toLowerCase())
    )
    const echoedIdHeader = requestIdName ?? "x-request-id"
    const clientIpHeaders = options.clientIpHeaders.map((name) => name.toLowerCase())
    const withCors = Cors.allow(cors)
    const withPreflight = Cors.preflight(cors)
    const corsEverywhere = cors.scope === "every answer"
    /** Requests refused before `100 Continue`: their clients send no body. */
    const continueWithheld = new WeakSet<IncomingMessage>()
    /** Each connection's latest response, for the parser's errors (`clientError`). */
    const responses = new WeakMap<Socket, ServerResponse>()
    let shuttingDown = false
    let inFlight = 0
    let drained: (() => void) | undefined

    const finished = () => {
      inFlight--
      if (inFlight === 0 && drained !== undefined) drained()
    }

    const accessLog = (context: Served, status: number) =>
      Effect.suspend(() => {
        context.facts.status = String(status)
        context.facts.duration_ms = (performance.now() - context.started).toFixed(1)
        return status >= 500 ? Effect.logWarning("request completed") : Effect.logInfo("request completed")
      })

    const record = (context: Served, status: number) => {
      if (options.metrics) {
        HttpMetrics.record(
          context.route,
          context.method,
          status,
          (performance.now() - context.started) / 1000
        )
      }
    }

    /** The metrics and access log of an answer the server gives itself. */
    const answered = (context: Served, status: number) => {
      record(context, status)
      run(accessLog(context, status).pipe(Effect.locally(Telemetry.currentFacts, context.facts)))
    }

    /** An answer the server gives itself, outside any route. */
    const answer = (res: ServerResponse, context: Served, response: HttpResponse) => {
      if (res.headersSent || res.destroyed) return
      res.writeHead(response.status, response.headers)
      res.end(response.body)
      answered(context, response.status)
    }

    const failure = (context: Served, cause: Cause.Cause<unknown>): Effect.Effect<HttpResponse> => {
      if (Cause.isInterruptedOnly(cause)) {
        return Effect.as(Effect.logDebug("client closed the request"), problems.internal(context.requestId))
      }
      const unavailable = Cause.defects(cause).pipe((defects) => [...defects].some(options.isUnavailable))
      return unavailable
        ? Effect.as(
            Effect.logWarning("request refused: a dependency is unavailable", Cause.squash(cause)),
            problems.unavailable(context.requestId, retryAfterSeconds)
          )
        : Effect.as(Effect.logError("request failed", cause), problems.internal(context.requestId))
    }

    const statusOfFailure = (cause: Cause.Cause<unknown>) =>
      [...Cause.defects(cause)].some(options.isUnavailable) ? 503 : 500

    /**
     * A route's effect with everything around it: the server span (only while tracing is on),
     * defects turned into the problem bodies, the access log, and the request's facts for every
     * log line within.
     */
    const program = (
      context: Served,
      handled: Effect.Effect<HttpResponse, never, R>
    ): Effect.Effect<HttpResponse, never, R> => {
      const spanned = tracing
        ? Effect.useSpan(
            `${context.method} ${context.route ?? "unmatched"}`,
            { kind: "server", attributes: context.spanAttributes, captureStackTrace: false },
            (span: Tracer.Span) =>
              handled.pipe(
                Effect.withParentSpan(span),
                Effect.tap((response) =>
                  Effect.sync(() => span.attribute("http.status_code", response.status))
                ),
                Effect.tapErrorCause((cause) =>
                  Effect.sync(() => span.attribute("http.status_code", statusOfFailure(cause)))
                )
              )
          )
        : handled
      return spanned.pipe(
        Effect.catchAllCause((cause) => failure(context, cause)),
        Effect.tap((response) => accessLog(context, response.status)),
        Effect.locally(Telemetry.currentFacts, context.facts)
      )
    }

    const send = (res: ServerResponse, context: Served, response: HttpResponse) => {
      if (res.headersSent || res.destroyed) return
      res.writeHead(response.status, response.headers)
      res.end(response.body)
      record(context, response.status)
    }

    const dispatch = (route: Route<R>, request: HttpRequest, context: Served, res: ServerResponse) => {
      const cancel = run(program(context, route.handle(request)), {
        onExit: (exit) => {
          if (Exit.isSuccess(exit)) send(res, context, exit.value)
        }
      })
      // A client that hangs up interrupts its request.
      res.once("close", () => {
        if (!res.writableEnded) cancel()
      })
    }

    /** The 413: at once, then the rest of the body read; before `100 Continue`, none comes. */
    const refuseBody = (req: IncomingMessage, res: ServerResponse, context: Served) => {
      const response = problems.tooLarge(options.maxBodyBytes)
      if (continueWithheld.has(req)) return answer(res, context, response)
      if (res.headersSent || res.destroyed) return
      Body.refuse(req, res, response)
      answered(context, response.status)
    }

    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      const started = performance.now()
      inFlight++
      res.once("close", finished)
      responses.set(req.socket, res)
      const incomingId = requestIdName === undefined ? undefined : req.headers[requestIdName]
      const requestId =
        typeof incomingId === "string" && acceptableRequestId.test(incomingId) ? incomingId : randomUUID()
      res.setHeader(echoedIdHeader, requestId)
      if (corsEverywhere) withCors(req, res)
      if (shuttingDown) res.setHeader("connection", "close")
      const method = req.method ?? "GET"
      const { path, query } = pathAndQuery(req.url ?? "/")
      const match = router.match(method === "HEAD" ? "GET" : method, path)
      const facts: Telemetry.Facts = { request_id: requestId, method, path }
      const context = (route: string | undefined, params: Readonly<Record<string, string>>): Served => {
        if (route !== undefined) facts.route = route
        const spanAttributes: Record<string, unknown> = { "http.method": method, request_id: requestId }
        if (tracing && route !== undefined) {
          spanAttributes["http.route"] = route
          for (const [key, value] of Object.entries(params))
            spanAttributes[`http.route.params.${key}`] = value
        }
        return { started, method, route, requestId, facts, spanAttributes }
      }

      // Node's own answers to these have an empty body; the protocol's have its shape.
      if (req.httpVersion === "1.1" && !req.headers.host) {
        res.setHeader("connection", "close")
        return answer(res, context(undefined, {}), problems.badRequest("the request has no Host header"))
      }
      const expectation = req.headers.expect
      if (expectation !== undefined && expectation.toLowerCase() !== "100-continue") {
        res.setHeader("connection", "close")
        return answer(res, context(undefined, {}), {
          ...problems.badRequest("the only expectation this server meets is 100-continue"),
          status: 417
        })
      }
      if (match._tag === "NotFound") {
        // A preflight is answered before any route is looked for, as a CORS middleware does:
        // the browser then sends the request and shows its 404.
        if (
          corsEverywhere &&
          method === "OPTIONS" &&
          req.headers["access-control-request-method"] !== undefined
        ) {
          withPreflight(req, res, Cors.anyRouteMethods)
          return answer(res, context(undefined, {}), { status: 204, headers: {}, body: undefined })
        }
        return answer(res, context(undefined, {}), problems.notFound)
      }
      if (match._tag === "MethodNotAllowed") {
        const allowed = [...match.allowed.keys(), "OPTIONS"].join(", ")
        const routes = [...match.allowed.values()]
        const route = routes[0]
        if (method === "OPTIONS") {
          if (corsEverywhere || routes.some((r) => r.options.cors === true)) withPreflight(req, res, allowed)
          res.setHeader("allow", allowed)
          return answer(res, context(route?.path, {}), { status: 204, headers: {}, body: undefined })
        }
        res.setHeader("allow", allowed)
        return answer(res, context(route?.path, {}), problems.methodNotAllowed)
      }

      const route = match.value
      const ctx = context(route.path, match.params)
      if (route.options.cors === true && !corsEverywhere) withCors(req, res)
      if (query.includes("%00"))
        return answer(res, ctx, problems.badRequest("the query holds a NUL character"))
      // As in a query: PostgreSQL stores no NUL, and a path parameter may be looked up as text.
      for (const param in match.params) {
        if (match.params[param]?.includes("\u0000") === true)
          return answer(res, ctx, problems.badRequest("the path holds a NUL character"))
      }
      const accepts = route.options.accepts
      if (accepts === undefined) {
        // No body is expected: whatever comes is discarded by Node once the answer is sent.
        return dispatch(
          route,
          request(req, method, path, query, "", route.path, match.params, requestId),
          ctx,
          res
        )
      }
      Body.read(req, options.maxBodyBytes, (body) => {
        if (body === undefined) return refuseBody(req, res, ctx)
        if (body !== "" || method !== "GET") {
          const type = mediaType(req.headers["content-type"])
          if (!accepts.includes(type)) return answer(res, ctx, problems.unsupportedMediaType(accepts))
          if (type === "application/x-www-form-urlencoded" && body.includes("%00")) {
            return answer(res, ctx, problems.badRequest("the body holds a NUL character"))
          }
        }
        dispatch(
          route,
          request(req, method, path, query, body, route.path, match.params, requestId),
          ctx,
          res
        )
      })
    }

    const clientIp = (req: IncomingMessage) => {
      for (const name of clientIpHeaders) {
        const forwarded = req.headers[name]
        const first = (typeof forwarded === "string" ? forwarded : forwarded?.[0])?.split(",")[0]?.trim()
        const address = first !== undefined && first.length <= maxAddressLength ? addressIn(first) : undefined
        if (address !== undefined) return address
      }
      return req.socket.remoteAddress ?? "unknown"
    }

    const request = (
      req: IncomingMessage,
      method: string,
      path: string,
      query: string,
      body: string,
      route: string,
      params: Readonly<Record<string, string>>,
      requestId: string
    ): HttpRequest => ({
      method,
      path,
      route,
      params,
      query,
      headers: req.headers,
      body,
      clientIp: clientIp(req),
      requestId
    })

    // Requests without a Host header are refused by `onRequest`, in the protocol's shape.
    const server = createServer(
      {
        requestTimeout: 60_000,
        requireHostHeader: false,
        ...(options.maxHeaderBytes === undefined ? {} : { maxHeaderSize: options.maxHeaderBytes })
      },
      onRequest
    )

    // A body declared too large is refused before the client sends it.
    server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
      if (Number(req.headers["content-length"] ?? "0") > options.maxBodyBytes) {
        continueWithheld.add(req)
        res.setHeader("connection", "close")
        onRequest(req, res)
      } else {
        res.writeContinue()
        onRequest(req, res)
      }
    })
    // Any other expectation: a 417 from `onRequest`.
    server.on("checkExpectation", onRequest)

    Connection.answerParserErrors(server, problems, (socket) => responses.get(socket))

    yield* Effect.acquireRelease(
      Effect.async<void, Listen.ListenError>((resume) => {
        server.once("error", (cause) =>
          resume(
            Effect.fail(
              Listen.failure(
                {
                  service: options.service,
                  host: options.host,
                  port: options.port,
                  variables: options.portVariables
                },
                cause
              )
            )
          )
        )
        server.listen(options.port, options.host, () => resume(Effect.void))
      }),
      () =>
        Effect.gen(function* () {
          // Stop accepting; let requests in flight finish (their connections then close), up to
          // the deadline; then close whatever is left. The database pool closes after this.
          shuttingDown = true
          server.close()
          server.closeIdleConnections()
          if (inFlight > 0) {
            yield* Effect.async<void>((resume) => {
              drained = () => resume(Effect.void)
            }).pipe(Effect.timeoutOption(options.shutdownTimeout))
          }
          server.closeAllConnections()
          yield* Effect.logInfo(`${options.service}: stopped`)
        })
    )
    const address = server.address()
    if (address !== null && typeof address === "object") {
      yield* Effect.logInfo(`${options.service}: listening on http://${address.address}:${address.port}`)
    }
  })

export const defaultShutdownTimeout = Duration.seconds(10)
