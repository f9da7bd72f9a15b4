import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { sendMagicLink } from "../../../application/auth/MagicLink.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import { field } from "./Endpoint.js"

export const Body = Schema.Struct({
  email: field(Schema.String),
  data: field(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  code_challenge: field(Schema.String),
  code_challenge_method: field(Schema.String)
})

/** POST /magiclink — the older form of /otp with an email: a magic link, the user made if new. */
export const handle = (body: typeof Body.Type, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    yield* sendMagicLink({
      email: body.email ?? "",
      createUser: true,
      data: body.data ?? {},
      redirectTo: new URLSearchParams(request.query).get("redirect_to") ?? "",
      codeChallenge: body.code_challenge ?? "",
      codeChallengeMethod: body.code_challenge_method ?? ""
    })
    return HttpMessage.json({})
  })
