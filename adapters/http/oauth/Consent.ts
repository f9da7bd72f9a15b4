import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { decide } from "../../../application/oauth/Consent.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as BrowserResponse from "./BrowserResponse.js"
import * as Form from "./Form.js"

/** POST /consent — the user's answer on our consent page; the prompt's cookie goes with it. */
export const page = (request: HttpRequest) =>
  Effect.gen(function* () {
    const browser = yield* HttpServerRequest.HttpServerRequest
    const params = Form.parse(request.body)
    const outcome = yield* decide({
      formToken: Form.get(params, "consent_token"),
      cookieToken: Option.fromNullable(browser.cookies[BrowserResponse.consentCookie]),
      approve: Form.get(params, "decision").pipe(Option.contains("approve"))
    })
    const response = yield* BrowserResponse.of(outcome)
    return HttpServerResponse.expireCookie(response, BrowserResponse.consentCookie, {
      path: "/consent"
    }).pipe(Effect.orElseSucceed(() => response))
  }).pipe(Effect.flatten)
