import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as AuthError from "../../../application/auth/AuthError.js"
import { sendMagicLink } from "../../../application/auth/MagicLink.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as JsonRequest from "./JsonRequest.js"
import { field } from "./JsonRequest.js"

const Body = Schema.Struct({
  email: field(Schema.String),
  phone: field(Schema.String),
  data: field(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  create_user: field(Schema.Boolean),
  channel: field(Schema.String),
  code_challenge: field(Schema.String),
  code_challenge_method: field(Schema.String)
})

/**
 * POST /otp — a one-time sign-in (supabase-js `signInWithOtp`): with an email, the magic link
 * (MagicLink.ts; `create_user` defaults to true); with a phone, a texted code, which comes with
 * the SMS gateways.
 */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    const body = yield* JsonRequest.decode(Body)(request)
    const email = body.email ?? ""
    const phone = body.phone ?? ""
    if (email !== "" && phone !== "") {
      return yield* AuthError.validationFailed("Only an email address or phone number should be provided")
    }
    if (email !== "" && (body.channel ?? "") !== "") {
      return yield* AuthError.validationFailed("Channel should only be specified with Phone OTP")
    }
    if (email !== "") {
      yield* sendMagicLink({
        email,
        createUser: body.create_user ?? true,
        data: body.data ?? {},
        redirectTo: new URLSearchParams(request.query).get("redirect_to") ?? "",
        codeChallenge: body.code_challenge ?? "",
        codeChallengeMethod: body.code_challenge_method ?? ""
      })
      return HttpMessage.json({})
    }
    if (phone !== "") {
      return yield* AuthError.smsNotAvailable()
    }
    return yield* AuthError.validationFailed("One of email or phone must be set")
  }).pipe(ErrorResponse.answering(request))
