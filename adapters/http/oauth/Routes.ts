import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Option, Redacted } from "effect"
import { authorize } from "../../../application/oauth/Authorize.js"
import type { BrowserOutcome } from "../../../application/oauth/BrowserOutcome.js"
import { callback } from "../../../application/oauth/Callback.js"
import { decide } from "../../../application/oauth/Consent.js"
import { OAuthSettings } from "../../../application/oauth/OAuthSettings.js"
import * as Lifetimes from "../../../domain/oauth/Lifetimes.js"
import { cors } from "./Api.js"
import { type ApiResponse, empty, json } from "./ApiMessage.js"
import * as Form from "./Form.js"
import * as InternalError from "./InternalError.js"
import * as Metadata from "./Metadata.js"
import { OAuthHttpConfig } from "./OAuthHttpConfig.js"
import * as Pages from "./Pages.js"

/** An answer built for the machine endpoints, as the platform's response. */
const respond = (response: ApiResponse) =>
  response.body === undefined
    ? HttpServerResponse.empty({ status: response.status, headers: response.headers })
    : HttpServerResponse.text(response.body, {
        status: response.status,
        headers: response.headers,
        contentType: response.headers["content-type"] ?? "application/json"
      })

const redirect = (location: string) =>
  HttpServerResponse.empty({ status: 302, headers: { location, "cache-control": "no-store" } })

const sessionCookie = "latchkey_session"
const consentCookie = "latchkey_consent"

/** Cookies are HttpOnly, Secure when BASE_URL is https, and never readable by scripts. */
const browserOutcome = (outcome: BrowserOutcome) =>
  Effect.map(OAuthSettings, (settings) => {
    const secure = settings.issuer.startsWith("https://")
    switch (outcome._tag) {
      case "ShowError":
        return Pages.error(outcome.error)
      case "ShowConsent": {
        const page = Pages.consent(outcome.prompt)
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

const currentUrl = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const settings = yield* OAuthSettings
  // The public URL, as the browser saw it behind any proxy: BASE_URL plus the request's path.
  return new URL(request.url, `${settings.issuer}/`)
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
  const params = yield* Form.browserForm
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

/**
 * The browser pages and the metadata document. The machine endpoints (token, introspect, revoke,
 * register) are served by Api.ts through ApiServer.ts.
 */
const router = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/.well-known/oauth-authorization-server",
    Effect.zipWith(OAuthSettings, OAuthHttpConfig, (settings, config) =>
      respond(
        json(Metadata.document(settings.issuer, Option.isSome(config.introspectionToken)), 200, {
          ...cors,
          "cache-control": "public, max-age=3600"
        })
      )
    )
  ),
  HttpRouter.options("/.well-known/oauth-authorization-server", Effect.succeed(respond(empty(204, cors)))),
  HttpRouter.get("/", authorizeRoute),
  HttpRouter.get("/callback", callbackRoute),
  HttpRouter.post("/consent", Effect.flatten(consentRoute))
)

/** The router with the not-found answer and the last-resort handler for defects. */
export const app = router.pipe(
  Effect.catchTag("RouteNotFound", () =>
    Effect.succeed(respond(json({ error: "not_found", error_description: "no such endpoint" }, 404)))
  ),
  Effect.catchAllCause((cause) => Effect.map(InternalError.answer(cause), respond))
)
