import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { decide } from "../../../application/oauth/Consent.js"
import * as Cookies from "../Cookies.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as BrowserResponse from "./BrowserResponse.js"
import * as Form from "./Form.js"

/** The consent page's form, as it comes. */
export const input = (request: HttpRequest) => Effect.succeed(Form.parse(request.body))

/** POST /consent — the user's answer on our consent page; the prompt's cookie goes with it. */
export const handle = (params: Form.Params, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    const outcome = yield* decide({
      formToken: Form.get(params, "consent_token"),
      cookieToken: Cookies.read(request, BrowserResponse.consentCookie),
      approve: Form.get(params, "decision").pipe(Option.contains("approve"))
    })
    // The prompt is answered: its cookie has no further use.
    return Cookies.expire(yield* BrowserResponse.of(outcome), BrowserResponse.consentCookie, {
      path: BrowserResponse.consentPath
    })
  })
