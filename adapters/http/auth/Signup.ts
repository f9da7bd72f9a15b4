import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { signInAnonymously } from "../../../application/auth/SignInAnonymously.js"
import { signup } from "../../../application/auth/Signup.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import { AuthHttpConfig } from "./AuthHttpConfig.js"
import * as CaptchaGuard from "./CaptchaGuard.js"
import * as ClientInfo from "./ClientInfo.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as JsonRequest from "./JsonRequest.js"
import { field } from "./JsonRequest.js"
import * as RateLimit from "./RateLimit.js"
import * as SessionJson from "./SessionJson.js"
import * as UserJson from "./UserJson.js"

const Body = Schema.Struct({
  email: field(Schema.String),
  phone: field(Schema.String),
  password: field(Schema.String),
  data: field(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  channel: field(Schema.String),
  code_challenge: field(Schema.String),
  code_challenge_method: field(Schema.String)
})

/**
 * POST /signup — with an email or a phone number, a sign-up (supabase-js `signUp`); with
 * neither, an anonymous sign-in (`signInAnonymously`), rate-limited per client address.
 */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* CaptchaGuard.guard(request)
    const body = yield* JsonRequest.decode(Body)(request)
    const client = ClientInfo.of(request)
    const data = body.data ?? {}
    const email = body.email ?? ""
    const phone = body.phone ?? ""
    if (email === "" && phone === "") {
      const config = yield* AuthHttpConfig
      yield* RateLimit.consume("anonymous", request.clientIp, config.anonymousLimit)
      const grant = yield* signInAnonymously(data, client)
      return HttpMessage.json(SessionJson.encode(grant))
    }
    yield* RateLimit.consume("otp", request.clientIp, (yield* AuthHttpConfig).otpLimit)
    const outcome = yield* signup({
      email,
      phone,
      password: body.password ?? "",
      data,
      codeChallenge: body.code_challenge ?? "",
      codeChallengeMethod: body.code_challenge_method ?? "",
      redirectTo: new URLSearchParams(request.query).get("redirect_to") ?? "",
      channel: body.channel ?? "",
      client
    })
    return outcome._tag === "SignedIn"
      ? HttpMessage.json(SessionJson.encode(outcome.grant))
      : HttpMessage.json(UserJson.encode(outcome.user, outcome.identities))
  }).pipe(ErrorResponse.answering(request))
