import { request } from "node:http"
import { connect } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Server from "../../support/oauth/OAuthServerHarness.js"
import type * as RawHttp from "../../support/RawHttp.js"

const ErrorBody = Schema.Struct({ error: Schema.String, error_description: Schema.String })

/**
 * A token request whose body waits for a word from the test. It asks `Expect: 100-continue`,
 * so the server's `100 Continue` proves that the server holds the request before the test
 * starts the shutdown.
 */
const heldRequest = (baseUrl: string) =>
  Effect.gen(function* () {
    const continued = yield* Deferred.make<void>()
    const answered = yield* Deferred.make<RawHttp.Answer, Error>()
    const body = "grant_type=refresh_token&client_id=cli&refresh_token=lkr_unknown"
    const url = new URL(baseUrl)
    const req = request({
      host: url.hostname,
      port: Number(url.port),
      method: "POST",
      path: "/token",
      agent: false,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "content-length": Buffer.byteLength(body),
        expect: "100-continue"
      }
    })
    req.on("continue", () => Deferred.unsafeDone(continued, Exit.void))
    req.on("response", (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () =>
        Deferred.unsafeDone(
          answered,
          Exit.succeed({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8")
          })
        )
      )
    })
    req.on("error", (error) => Deferred.unsafeDone(answered, Exit.fail(error)))
    req.flushHeaders()
    yield* Deferred.await(continued)
    return { finish: Effect.sync(() => req.end(body)), answer: Deferred.await(answered) }
  })

/** Whether a new connection to the server's port is refused. */
const refusesConnections = (baseUrl: string) =>
  Effect.async<boolean>((resume) => {
    const url = new URL(baseUrl)
    const socket = connect(Number(url.port), url.hostname)
    socket.on("connect", () => {
      socket.destroy()
      resume(Effect.succeed(false))
    })
    socket.on("error", (error: NodeJS.ErrnoException) =>
      resume(Effect.succeed(error.code === "ECONNREFUSED"))
    )
  })

/** Starts the server in `scope`, holds a request, closes the scope under it. */
const shutdownUnderRequest = (scope: Scope.CloseableScope) =>
  Effect.gen(function* () {
    const { baseUrl } = yield* Scope.extend(Server.start(), scope)
    const held = yield* heldRequest(baseUrl)

    const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
    // The listening socket closes first; poll for it, within a bound, rather than guess.
    const refused = yield* refusesConnections(baseUrl).pipe(
      Effect.repeat({ until: (refused) => refused, schedule: Schedule.spaced("20 millis") }),
      Effect.timeoutOption("5 seconds")
    )
    expect(refused._tag).toBe("Some")

    // The request still runs to its end, database included: the pool closes after it.
    yield* held.finish
    const answer = yield* held.answer
    expect(answer.status, answer.body).toBe(400)
    expect(Schema.decodeUnknownSync(ErrorBody)(JSON.parse(answer.body)).error).toBe("invalid_grant")

    yield* Fiber.join(closing)
    expect(yield* refusesConnections(baseUrl)).toBe(true)
  })

describe("graceful shutdown", () => {
  it.live(
    "a request in flight when the server's scope closes gets its answer; new connections are refused",
    () =>
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        // A failed expectation must not leave the server running; closing twice is harmless.
        yield* shutdownUnderRequest(scope).pipe(Effect.ensuring(Scope.close(scope, Exit.void)))
      }),
    { timeout: 60_000 }
  )
})
