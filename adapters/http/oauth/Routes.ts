import { randomUUID } from "node:crypto"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Duration, Effect, Option, Redacted } from "effect"
import { authorize } from "../../../application/oauth/Authorize.js"
import type { BrowserOutcome } from "../../../application/oauth/BrowserOutcome.js"
import { callback } from "../../../application/oauth/Callback.js"
import { authenticate } from "../../../application/oauth/ClientAuthentication.js"
import { decide } from "../../../application/oauth/Consent.js"
import { exchangeCode } from "../../../application/oauth/ExchangeCode.js"
import { introspect } from "../../../application/oauth/Introspect.js"
import { invalidRequest, OAuthError } from "../../../application/oauth/OAuthError.js"
import { refresh } from "../../../application/oauth/Refresh.js"
import { register } from "../../../application/oauth/Register.js"
import { revoke } from "../../../application/oauth/Revoke.js"
import type { TokenResponse } from "../../../application/oauth/TokenResponse.js"
import { constantTimeEqual } from "../../../domain/ConstantTime.js"
import * as Lifetimes from "../../../domain/Lifetimes.js"
import * as ClientCredentials from "./ClientCredentials.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Form from "./Form.js"
import * as Metadata from "./Metadata.js"
import { OAuthHttpConfig } from "./OAuthHttpConfig.js"
import * as Pages from "./Pages.js"

/** Browser-based clients call these endpoints cross-origin; none of them uses cookies. */
const cors = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type",
  "access-control-max-age": "86400"
}
const withCors = HttpServerResponse.setHeaders(cors)
const preflight = Effect.succeed(HttpServerResponse.empty({ status: 204, headers: cors }))

const refuseDuplicates = (params: Form.Params) => {
  const repeated = params.duplicates[0]
  return repeated === undefined ? Effect.void : Effect.fail(invalidRequest(`${repeated} is repeated`))
}

const redirect = (location: string) =>
  HttpServerResponse.empty({ status: 302, headers: { location, "cache-control": "no-store" } })

const sessionCookie = "latchkey_session"
const consentCookie = "latchkey_consent"

/** Cookies are HttpOnly, Secure when BASE_URL is https, and never readable by scripts. */
const browserOutcome = (outcome: BrowserOutcome) =>
  Effect.map(OAuthHttpConfig, (config) => {
    const secure = config.secureCookies
    switch (outcome._tag) {
      case "ShowError":
        return Pages.error(outcome.error)
      case "ShowConsent": {
        const redirectOrigin = new URL(`http://${outcome.prompt.redirectHost}`).host
        const page = Pages.consent(outcome.prompt, `${redirectOrigin}`)
        return HttpServerResponse.unsafeSetCookie(page, consentCookie, Redacted.value(outcome.prompt.token), {
          httpOnly: true,
          secure,
          sameSite: "strict",
          path: "/consent",
          maxAge: Duration.minutes(10)
        })
      }
      case "RedirectToUpstream":
        return redirect(outcome.location)
      case "RedirectToClient": {
        const response = redirect(outcome.location)
        return outcome.session === undefined
          ? response
          : HttpServerResponse.unsafeSetCookie(response, sessionCookie, Redacted.value(outcome.session), {
              httpOnly: true,
              secure,
              // Lax: the next authorize arrives as a top-level navigation from the client's site.
              sameSite: "lax",
              path: "/",
              maxAge: Lifetimes.browserSession
            })
      }
    }
  })

const tokenBody = (tokens: TokenResponse) => ({
  access_token: Redacted.value(tokens.accessToken),
  token_type: "Bearer",
  expires_in: tokens.expiresIn,
  ...Option.match(tokens.refreshToken, {
    onNone: () => ({}),
    onSome: (t) => ({ refresh_token: Redacted.value(t) })
  }),
  ...Option.match(tokens.scope, { onNone: () => ({}), onSome: (scope) => ({ scope }) })
})

const currentUrl = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* OAuthHttpConfig
  // The public URL, as the browser saw it behind any proxy: BASE_URL plus the request's path.
  return new URL(request.url, `${config.issuer}/`)
})

const authorizeRoute = Effect.gen(function* () {
  const url = yield* currentUrl
  const params = Form.collect(url.searchParams.entries())
  const request = yield* HttpServerRequest.HttpServerRequest
  const session = request.cookies[sessionCookie]
  return yield* browserOutcome(
    yield* authorize({
      params: params.values,
      duplicates: params.duplicates,
      ...(session === undefined ? {} : { session })
    })
  )
})

const callbackRoute = Effect.gen(function* () {
  const url = yield* currentUrl
  return yield* browserOutcome(yield* callback(url))
})

const consentRoute = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = yield* Form.form.pipe(Effect.catchAll(() => Effect.succeed(Form.collect([]))))
  const outcome = yield* decide({
    formToken: Form.get(params, "consent_token"),
    cookieToken: Option.fromNullable(request.cookies[consentCookie]),
    approve: Form.get(params, "decision").pipe(Option.contains("approve"))
  })
  const response = yield* browserOutcome(outcome)
  return HttpServerResponse.expireCookie(response, consentCookie, { path: "/consent" }).pipe(
    Effect.orElseSucceed(() => response)
  )
})

const tokenRoute = Effect.gen(function* () {
  const params = yield* Form.form
  yield* refuseDuplicates(params)
  const grantType = Form.get(params, "grant_type")
  if (Option.isNone(grantType)) return yield* invalidRequest("grant_type is required")
  if (grantType.value !== "authorization_code" && grantType.value !== "refresh_token") {
    return yield* new OAuthError({
      code: "unsupported_grant_type",
      description: "grant_type must be authorization_code or refresh_token"
    })
  }
  const client = yield* authenticate(yield* ClientCredentials.fromRequest(params))
  const tokens =
    grantType.value === "authorization_code"
      ? yield* exchangeCode(client, {
          code: Form.get(params, "code"),
          redirectUri: Form.get(params, "redirect_uri"),
          codeVerifier: Form.get(params, "code_verifier")
        })
      : yield* refresh(client, {
          refreshToken: Form.get(params, "refresh_token"),
          scope: Form.get(params, "scope")
        })
  return ErrorResponse.json(tokenBody(tokens))
})

const sourceAddress = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* OAuthHttpConfig
  const fromHeader = Option.flatMap(config.rateLimitHeader, (name) =>
    Option.fromNullable(request.headers[name.toLowerCase()]?.split(",")[0]?.trim())
  )
  return Option.getOrElse(
    Option.orElse(fromHeader, () => request.remoteAddress),
    () => "unknown"
  )
})

const registerRoute = Effect.gen(function* () {
  const body = yield* Form.json
  const config = yield* OAuthHttpConfig
  const registered = yield* register(body, yield* sourceAddress, config.registerLimit)
  return ErrorResponse.json(registered, 201)
})

const introspectionRefused = ErrorResponse.json(
  { error: "invalid_client", error_description: "present the introspection secret as a Bearer token" },
  401,
  { "www-authenticate": 'Bearer realm="latchkey"' }
)

const introspectRoute = Effect.gen(function* () {
  const config = yield* OAuthHttpConfig
  if (Option.isNone(config.introspectionToken)) {
    return ErrorResponse.json({ error: "not_found", error_description: "introspection is disabled" }, 404)
  }
  const request = yield* HttpServerRequest.HttpServerRequest
  const [scheme, presented] = (request.headers.authorization ?? "").split(" ")
  if (
    scheme?.toLowerCase() !== "bearer" ||
    presented === undefined ||
    !constantTimeEqual(presented, Redacted.value(config.introspectionToken.value))
  ) {
    return introspectionRefused
  }
  const params = yield* Form.form
  yield* refuseDuplicates(params)
  const token = Form.get(params, "token")
  if (Option.isNone(token)) return yield* invalidRequest("token is required")
  return ErrorResponse.json(yield* introspect(token.value, Form.get(params, "token_type_hint")))
})

const revokeRoute = Effect.gen(function* () {
  const params = yield* Form.form
  yield* refuseDuplicates(params)
  const token = Form.get(params, "token")
  if (Option.isNone(token)) return yield* invalidRequest("token is required")
  const client = yield* authenticate(yield* ClientCredentials.fromRequest(params))
  yield* revoke(client, token.value, Form.get(params, "token_type_hint"))
  return HttpServerResponse.empty({ status: 200, headers: ErrorResponse.noStore })
})

const api = <R>(
  route: Effect.Effect<HttpServerResponse.HttpServerResponse, OAuthError | Form.BodyTooLarge, R>
) =>
  route.pipe(
    Effect.catchTags({
      OAuthError: (error) => Effect.succeed(ErrorResponse.fromError(error)),
      BodyTooLarge: () =>
        Effect.succeed(
          ErrorResponse.json(
            { error: "invalid_request", error_description: `the body exceeds ${Form.maxBodyBytes} bytes` },
            413
          )
        )
    }),
    Effect.map(withCors)
  )

/** Unexpected failures: logged with a request id, answered with that id and nothing else. */
const internalError = <E>(cause: Cause.Cause<E>) =>
  Effect.gen(function* () {
    const requestId = randomUUID()
    // A client that hung up interrupts its request: nobody is waiting for an answer, and it is
    // not a failure of ours.
    if (Cause.isInterruptedOnly(cause)) {
      yield* Effect.logDebug("request interrupted").pipe(Effect.annotateLogs({ requestId }))
    } else {
      yield* Effect.logError("request failed", cause).pipe(Effect.annotateLogs({ requestId }))
    }
    return ErrorResponse.json(
      { error: "server_error", error_description: `internal error (request id ${requestId})` },
      500
    )
  })

export const router = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/.well-known/oauth-authorization-server",
    Effect.map(OAuthHttpConfig, (c) =>
      withCors(ErrorResponse.json(Metadata.document(c), 200, { "cache-control": "public, max-age=3600" }))
    )
  ),
  HttpRouter.options("/.well-known/oauth-authorization-server", preflight),
  HttpRouter.get("/", authorizeRoute),
  HttpRouter.get("/callback", callbackRoute),
  HttpRouter.post("/consent", Effect.flatten(consentRoute)),
  HttpRouter.post("/token", api(tokenRoute)),
  HttpRouter.options("/token", preflight),
  HttpRouter.post("/register", api(registerRoute)),
  HttpRouter.options("/register", preflight),
  HttpRouter.post("/introspect", api(introspectRoute)),
  HttpRouter.options("/introspect", preflight),
  HttpRouter.post("/revoke", api(revokeRoute)),
  HttpRouter.options("/revoke", preflight)
)

/** The router with the not-found answer and the last-resort handler for defects. */
export const app = router.pipe(
  Effect.catchTag("RouteNotFound", () =>
    Effect.succeed(ErrorResponse.json({ error: "not_found", error_description: "no such endpoint" }, 404))
  ),
  Effect.catchAllCause(internalError)
)
