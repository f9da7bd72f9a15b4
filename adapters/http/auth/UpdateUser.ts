import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { updateUser } from "../../../application/auth/UpdateUser.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import { AuthHttpConfig } from "./AuthHttpConfig.js"
import * as Bearer from "./Bearer.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as JsonRequest from "./JsonRequest.js"
import { field } from "./JsonRequest.js"
import * as RateLimit from "./RateLimit.js"
import * as UserJson from "./UserJson.js"

const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const Body = Schema.Struct({
  email: field(Schema.String),
  phone: field(Schema.String),
  password: field(Schema.String),
  current_password: field(Schema.String),
  nonce: field(Schema.String),
  data: field(Metadata),
  app_metadata: field(Metadata),
  code_challenge: field(Schema.String),
  channel: field(Schema.String),
  code_challenge_method: field(Schema.String)
})

/** PUT /user — changes of the signed-in user (supabase-js `updateUser`). */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* RateLimit.consume("otp", request.clientIp, (yield* AuthHttpConfig).otpLimit)
    const signedIn = yield* Authenticate.user(yield* Bearer.token(request))
    const body = yield* JsonRequest.decode(Body)(request)
    const updated = yield* updateUser(signedIn, {
      email: body.email ?? "",
      phone: body.phone ?? "",
      password: Option.fromNullable(body.password),
      currentPassword: body.current_password ?? "",
      nonce: body.nonce ?? "",
      data: Option.fromNullable(body.data),
      appMetadata: Option.fromNullable(body.app_metadata),
      redirectTo: new URLSearchParams(request.query).get("redirect_to") ?? "",
      codeChallenge: body.code_challenge ?? "",
      codeChallengeMethod: body.code_challenge_method ?? "",
      channel: body.channel ?? ""
    })
    return HttpMessage.json(UserJson.encode(updated.user, updated.identities))
  }).pipe(ErrorResponse.answering(request))
