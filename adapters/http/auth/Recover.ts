import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { recover } from "../../../application/auth/Recover.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import { AuthHttpConfig } from "./AuthHttpConfig.js"
import * as CaptchaGuard from "./CaptchaGuard.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as JsonRequest from "./JsonRequest.js"
import { field } from "./JsonRequest.js"
import * as RateLimit from "./RateLimit.js"

const Body = Schema.Struct({
  email: field(Schema.String),
  code_challenge: field(Schema.String),
  code_challenge_method: field(Schema.String)
})

/** POST /recover — a recovery mail (supabase-js `resetPasswordForEmail`); `{}` whoever asked. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* RateLimit.consume("otp", request.clientIp, (yield* AuthHttpConfig).otpLimit)
    yield* CaptchaGuard.guard(request)
    const body = yield* JsonRequest.decode(Body)(request)
    yield* recover({
      email: body.email ?? "",
      redirectTo: new URLSearchParams(request.query).get("redirect_to") ?? "",
      codeChallenge: body.code_challenge ?? "",
      codeChallengeMethod: body.code_challenge_method ?? ""
    })
    return HttpMessage.json({})
  }).pipe(ErrorResponse.answering(request))
