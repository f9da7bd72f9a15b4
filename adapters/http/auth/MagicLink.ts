import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { sendMagicLink } from "../../../application/auth/MagicLink.js"
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
  data: field(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  code_challenge: field(Schema.String),
  code_challenge_method: field(Schema.String)
})

/** POST /magiclink — the older form of /otp with an email: a magic link, the user made if new. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* RateLimit.consume("otp", request.clientIp, (yield* AuthHttpConfig).otpLimit)
    yield* CaptchaGuard.guard(request)
    const body = yield* JsonRequest.decode(Body)(request)
    yield* sendMagicLink({
      email: body.email ?? "",
      createUser: true,
      data: body.data ?? {},
      redirectTo: new URLSearchParams(request.query).get("redirect_to") ?? "",
      codeChallenge: body.code_challenge ?? "",
      codeChallengeMethod: body.code_challenge_method ?? ""
    })
    return HttpMessage.json({})
  }).pipe(ErrorResponse.answering(request))
