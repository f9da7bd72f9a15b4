import type { IncomingHttpHeaders } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ErrorCode } from "../../../../adapters/http/auth/ErrorCode.js"
import * as ErrorResponse from "../../../../adapters/http/auth/ErrorResponse.js"
import * as HttpMessage from "../../../../adapters/http/HttpMessage.js"
import * as Route from "../../../../adapters/http/Route.js"
import * as Server from "../../../../adapters/http/Server.js"
import * as AuthError from "../../../../application/auth/AuthError.js"
import * as PasswordPolicy from "../../../../domain/PasswordPolicy.js"
import { freePort } from "../../../support/FreePort.js"

const requestId = "req-1"
const legacy: IncomingHttpHeaders = {}
const current: IncomingHttpHeaders = { "x-supabase-api-version": "2024-01-01" }

describe("ErrorResponse.statusOf", () => {
  it("gives every code a client or server error status", () => {
    for (const code of ErrorCode.literals) {
      const status = ErrorResponse.statusOf[code]
      expect(Number.isInteger(status) && status >= 400 && status <= 599, code).toBe(true)
    }
  })

  // The statuses Supabase Auth's handlers raise these codes with most often (bc32168).
  it.each([
    ["invalid_credentials", 400],
    ["validation_failed", 400],
    ["bad_json", 400],
    ["refresh_token_not_found", 400],
    ["refresh_token_already_used", 400],
    ["session_expired", 400],
    ["bad_code_verifier", 400],
    ["no_authorization", 401],
    ["bad_jwt", 403],
    ["not_admin", 403],
    ["user_banned", 403],
    ["session_not_found", 403],
    ["otp_expired", 403],
    ["user_not_found", 404],
    ["flow_state_not_found", 404],
    ["saml_provider_disabled", 404],
    ["manual_linking_disabled", 404],
    ["conflict", 409],
    ["request_entity_too_large", 413],
    ["email_exists", 422],
    ["phone_exists", 422],
    ["user_already_exists", 422],
    ["signup_disabled", 422],
    ["flow_state_expired", 422],
    ["weak_password", 422],
    ["anonymous_provider_disabled", 422],
    ["over_request_rate_limit", 429],
    ["over_email_send_rate_limit", 429],
    ["over_sms_send_rate_limit", 429],
    ["unexpected_failure", 500],
    ["request_timeout", 504]
  ] as const)("%s → %i", (code, status) => {
    expect(ErrorResponse.statusOf[code]).toBe(status)
  })
})

describe("ErrorResponse.apiVersion", () => {
  it.each([
    [undefined, undefined],
    ["", undefined],
    ["2023-12-31", undefined],
    ["2024-01-01", "2024-01-01"],
    ["2024-01-02", "2024-01-01"],
    ["2031-07-15", "2024-01-01"],
    [" 2024-01-01 ", "2024-01-01"],
    // Malformed: Supabase Auth falls back to the initial version.
    ["not a date", undefined],
    ["2024-1-1", undefined],
    ["2024-01-01T00:00:00Z", undefined],
    ["2024-13-01", undefined],
    ["2024-02-30", undefined],
    ["2025-02-29", undefined],
    ["20240101", undefined],
    // A leap day is a date.
    ["2028-02-29", "2024-01-01"],
    // Node joins a repeated header; Go reads the first.
    ["2024-01-01, 2023-01-01", "2024-01-01"],
    ["2023-01-01, 2024-01-01", undefined]
  ])("%j → %j", (value, expected) => {
    const headers: IncomingHttpHeaders = value === undefined ? {} : { "x-supabase-api-version": value }
    expect(ErrorResponse.apiVersion(headers)).toBe(expected)
  })
})

describe("ErrorResponse.fromError", () => {
  it("answers a request without a version in the legacy shape, which names the status", () => {
    const response = ErrorResponse.fromError(new AuthError.InvalidCredentials(), legacy, requestId)
    expect(response.status).toBe(400)
    expect(response.body).toBe(
      '{"code":400,"error_code":"invalid_credentials","msg":"Invalid login credentials"}'
    )
    expect(response.headers).toEqual({
      "content-type": "application/json",
      "x-sb-error-code": "invalid_credentials"
    })
  })

  it("answers a 2024-01-01 request with the error code as `code`, and names the version", () => {
    const response = ErrorResponse.fromError(new AuthError.InvalidCredentials(), current, requestId)
    expect(response.status).toBe(400)
    expect(response.body).toBe('{"code":"invalid_credentials","message":"Invalid login credentials"}')
    expect(response.headers).toEqual({
      "content-type": "application/json",
      "x-sb-error-code": "invalid_credentials",
      "x-supabase-api-version": "2024-01-01"
    })
  })

  it.each([
    ["2023-12-31", "legacy"],
    ["2024-01-01", "current"],
    ["2025-05-05", "current"],
    ["2024-01-1", "legacy"],
    ["yesterday", "legacy"]
  ])("picks the shape by the header: %s → %s", (version, shape) => {
    const response = ErrorResponse.fromError(
      new AuthError.SignupDisabled(),
      { "x-supabase-api-version": version },
      requestId
    )
    expect(response.status).toBe(422)
    expect(JSON.parse(response.body ?? "")).toEqual(
      shape === "legacy"
        ? { code: 422, error_code: "signup_disabled", msg: "Signups not allowed for this instance" }
        : { code: "signup_disabled", message: "Signups not allowed for this instance" }
    )
    // The version sent back is the one the body follows, not the one asked for.
    expect(response.headers["x-supabase-api-version"]).toBe(shape === "legacy" ? undefined : "2024-01-01")
  })

  it("uses a reason's own status where Supabase Auth departs from the code's usual one", () => {
    const response = ErrorResponse.fromError(new AuthError.PasswordGrantUserBanned(), legacy, requestId)
    expect(response.status).toBe(400)
    expect(JSON.parse(response.body ?? "")).toEqual({
      code: 400,
      error_code: "user_banned",
      msg: "User is banned"
    })
    expect(ErrorResponse.fromError(new AuthError.UserIsBanned(), legacy, requestId).status).toBe(403)
  })

  it("adds the request id as error_id to legacy 5xx bodies only", () => {
    const failure = ErrorResponse.fromError(new AuthError.UserNotSaved({ write: "new" }), legacy, "abc")
    expect(failure.status).toBe(500)
    expect(failure.body).toBe(
      '{"code":500,"error_code":"unexpected_failure","msg":"Database error saving new user","error_id":"abc"}'
    )
    // No reason answers request_timeout (504) yet; the server's own 503 is a legacy 5xx too.
    const unavailable = ErrorResponse.problems.unavailable("abc", 1)
    expect(JSON.parse(unavailable.body ?? "")).toMatchObject({ code: 503, error_id: "abc" })
    expect(
      JSON.parse(ErrorResponse.fromError(new AuthError.NotAdmin(), legacy, "abc").body ?? "")
    ).not.toHaveProperty("error_id")
    // The 2024-01-01 shape never carries it.
    const current500 = ErrorResponse.fromError(
      new AuthError.ProviderUnreachable({ provider: "x" }),
      current,
      "abc"
    )
    expect(current500.body).toBe('{"code":"unexpected_failure","message":"Unable to reach the x provider"}')
  })

  it("answers weak_password with the reasons, in both shapes", () => {
    const error = new PasswordPolicy.WeakPassword({
      reasons: ["length"],
      message: "Password should be at least 6 characters."
    })
    const old = ErrorResponse.fromError(error, legacy, requestId)
    expect(old.status).toBe(422)
    expect(old.body).toBe(
      '{"code":422,"error_code":"weak_password","msg":"Password should be at least 6 characters.",' +
        '"weak_password":{"reasons":["length"]}}'
    )
    expect(old.headers["x-sb-error-code"]).toBe("weak_password")
    const now = ErrorResponse.fromError(error, current, requestId)
    expect(now.body).toBe(
      '{"code":"weak_password","message":"Password should be at least 6 characters.",' +
        '"weak_password":{"reasons":["length"]}}'
    )
    expect(now.headers["x-sb-error-code"]).toBe("weak_password")
  })

  it("keeps weak_password's object when it has no reasons, as Go's encoder does", () => {
    const response = ErrorResponse.fromError(
      new PasswordPolicy.WeakPassword({ reasons: [], message: "Password is too weak" }),
      current,
      requestId
    )
    expect(response.body).toBe('{"code":"weak_password","message":"Password is too weak","weak_password":{}}')
  })

  it("escapes <, > and & as Go's encoder does", () => {
    const response = ErrorResponse.fromError(
      new AuthError.CustomProviderInvalid({ message: "<a> & \u2028" }),
      current,
      requestId
    )
    expect(response.body).toBe('{"code":"validation_failed","message":"\\u003ca\\u003e \\u0026 \\u2028"}')
    expect(JSON.parse(response.body ?? "").message).toBe("<a> & \u2028")
  })

  it("answers OAuth-shaped failures with {error, error_description}, 400 and no error code header", () => {
    const error = new AuthError.ProviderRefused({
      error: "invalid_request",
      description: "refresh_token required"
    })
    const response = ErrorResponse.fromError(error, legacy, requestId)
    expect(response.status).toBe(400)
    expect(response.body).toBe('{"error":"invalid_request","error_description":"refresh_token required"}')
    expect(response.headers).toEqual({ "content-type": "application/json" })
    const asked = ErrorResponse.fromError(error, current, requestId)
    expect(asked.body).toBe(response.body)
    expect(asked.headers["x-supabase-api-version"]).toBe("2024-01-01")
    const bare = ErrorResponse.fromError(
      new AuthError.ProviderRefused({ error: "server_error", description: "" }),
      legacy,
      "x"
    )
    expect(bare.body).toBe('{"error":"server_error"}')
  })
})

describe("ErrorResponse.withApiVersion", () => {
  it("names the version on any answer to a request that asked for one", () => {
    const ok = HttpMessage.json({ ok: true })
    expect(ErrorResponse.withApiVersion(ok, current).headers["x-supabase-api-version"]).toBe("2024-01-01")
    expect(
      ErrorResponse.withApiVersion(ok, { "x-supabase-api-version": "2026-03-01" }).headers[
        "x-supabase-api-version"
      ]
    ).toBe("2024-01-01")
    expect(ErrorResponse.withApiVersion(ok, legacy)).toBe(ok)
    expect(ErrorResponse.withApiVersion(ok, { "x-supabase-api-version": "garbage" })).toBe(ok)
  })
})

describe("ErrorResponse.answering", () => {
  it.effect("turns an endpoint's reason into its answer", () =>
    Effect.gen(function* () {
      const response = yield* Effect.fail(new AuthError.NoBearerToken()).pipe(
        ErrorResponse.answering({ headers: current, requestId })
      )
      expect(response.status).toBe(401)
      expect(response.body).toBe(
        '{"code":"no_authorization","message":"This endpoint requires a valid Bearer token"}'
      )
    })
  )
})

describe("ErrorResponse.problems", () => {
  const { problems } = ErrorResponse

  it("answers an unknown path as Supabase Auth's router does: Go's plain-text 404", () => {
    expect(problems.notFound).toEqual({
      status: 404,
      headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
      body: "404 page not found\n"
    })
  })

  it("answers another method on a known path with an empty 405", () => {
    expect(problems.methodNotAllowed).toEqual({ status: 405, headers: {}, body: undefined })
  })

  it("answers a body it cannot read with bad_json, in the legacy shape", () => {
    const response = problems.badRequest("the body holds a NUL character")
    expect(response.status).toBe(400)
    expect(response.body).toBe('{"code":400,"error_code":"bad_json","msg":"the body holds a NUL character"}')
    expect(response.headers["x-sb-error-code"]).toBe("bad_json")
    const wrongType = problems.unsupportedMediaType(["application/json"])
    expect(wrongType.status).toBe(400)
    expect(wrongType.body).toBe(
      '{"code":400,"error_code":"bad_json","msg":"the body must be application/json"}'
    )
  })

  it("answers an oversized body with request_entity_too_large", () => {
    const response = problems.tooLarge(1_048_576)
    expect(response.status).toBe(413)
    expect(response.body).toBe(
      '{"code":413,"error_code":"request_entity_too_large","msg":"Request body too large (max 1048576 bytes)"}'
    )
    expect(response.headers["x-sb-error-code"]).toBe("request_entity_too_large")
  })

  it("answers oversized headers as Go's server does, in plain text", () => {
    expect(problems.headersTooLarge.status).toBe(431)
    expect(problems.headersTooLarge.body).toBe("431 Request Header Fields Too Large")
  })

  it("answers a defect with unexpected_failure and the request id", () => {
    const response = problems.internal("req-9")
    expect(response.status).toBe(500)
    expect(response.body).toBe(
      '{"code":500,"error_code":"unexpected_failure",' +
        '"msg":"Unexpected failure, please check server logs for more information","error_id":"req-9"}'
    )
    expect(response.headers["x-sb-error-code"]).toBe("unexpected_failure")
  })

  it("answers an unreachable database with a 503, the request id and Retry-After", () => {
    const response = problems.unavailable("req-7", 5)
    expect(response.status).toBe(503)
    expect(JSON.parse(response.body ?? "")).toEqual({
      code: 503,
      error_code: "unexpected_failure",
      msg: "Service temporarily unavailable, please retry after a moment.",
      error_id: "req-7"
    })
    expect(response.headers["retry-after"]).toBe("5")
  })

  it("names no API version on the answers it gives without seeing the request", () => {
    const answers = [
      problems.notFound,
      problems.methodNotAllowed,
      problems.badRequest("x"),
      problems.unsupportedMediaType(["application/json"]),
      problems.tooLarge(1),
      problems.headersTooLarge,
      problems.unavailable("r", 5),
      problems.internal("r")
    ]
    for (const answer of answers) expect(answer.headers).not.toHaveProperty("x-supabase-api-version")
  })
})

/** The shared server with the auth service's problems and errors, as a client meets them. */
const start = Effect.gen(function* () {
  const port = yield* freePort
  const routes = [
    Route.make(
      "POST",
      "/token",
      (request) =>
        Effect.fail(new AuthError.InvalidCredentials()).pipe(
          Effect.as(HttpMessage.json({})),
          ErrorResponse.answering(request)
        ),
      { accepts: ["application/json"] }
    ),
    Route.make("GET", "/broken", () => Effect.die(new Error("a defect")))
  ]
  const serve = Server.serve({
    service: "auth",
    host: "127.0.0.1",
    port,
    routes,
    problems: ErrorResponse.problems,
    cors: { origin: "any", scope: "routes", allowHeaders: [], exposeHeaders: [], maxAgeSeconds: 60 },
    maxBodyBytes: 64,
    requestIdHeader: Option.none(),
    clientIpHeaders: [],
    metrics: false,
    shutdownTimeout: "1 second",
    isUnavailable: () => false
  })
  const scope = yield* Effect.scope
  yield* Layer.buildWithScope(
    Layer.scopedDiscard(serve).pipe(Layer.provide(Layer.setTracerEnabled(false))),
    scope
  )
  return `http://127.0.0.1:${port}`
})

const call = (url: string, init: RequestInit = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    return { status: response.status, headers: response.headers, text: await response.text() }
  })

describe("the auth service's answers over HTTP", () => {
  it.scoped("a route's AuthError in the shape the request asked for", () =>
    Effect.gen(function* () {
      const base = yield* start
      const init = { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }
      const old = yield* call(`${base}/token`, init)
      expect(old.status).toBe(400)
      expect(old.text).toBe(
        '{"code":400,"error_code":"invalid_credentials","msg":"Invalid login credentials"}'
      )
      expect(old.headers.get("x-sb-error-code")).toBe("invalid_credentials")
      expect(old.headers.get("x-supabase-api-version")).toBeNull()
      const current = yield* call(`${base}/token`, {
        ...init,
        headers: { ...init.headers, "X-Supabase-Api-Version": "2024-01-01" }
      })
      expect(current.text).toBe('{"code":"invalid_credentials","message":"Invalid login credentials"}')
      expect(current.headers.get("x-supabase-api-version")).toBe("2024-01-01")
    })
  )

  it.scoped("the server's own answers: 404, 405, 413 and 500", () =>
    Effect.gen(function* () {
      const base = yield* start
      const unknown = yield* call(`${base}/nowhere`)
      expect(unknown.status).toBe(404)
      expect(unknown.text).toBe("404 page not found\n")
      expect(unknown.headers.get("content-type")).toBe("text/plain; charset=utf-8")
      const wrongMethod = yield* call(`${base}/token`)
      expect(wrongMethod.status).toBe(405)
      expect(wrongMethod.text).toBe("")
      expect(wrongMethod.headers.get("allow")).toBe("POST, OPTIONS")
      const large = yield* call(`${base}/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "a".repeat(100) })
      })
      expect(large.status).toBe(413)
      expect(JSON.parse(large.text)).toEqual({
        code: 413,
        error_code: "request_entity_too_large",
        msg: "Request body too large (max 64 bytes)"
      })
      const broken = yield* call(`${base}/broken`)
      expect(broken.status).toBe(500)
      const requestId = broken.headers.get("x-request-id")
      expect(JSON.parse(broken.text)).toEqual({
        code: 500,
        error_code: "unexpected_failure",
        msg: "Unexpected failure, please check server logs for more information",
        error_id: requestId
      })
    })
  )
})
