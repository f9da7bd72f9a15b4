import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { recover } from "../../../application/auth/Recover.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import { field } from "./Endpoint.js"

export const Body = Schema.Struct({
  email: field(Schema.String),
  code_challenge: field(Schema.String),
  code_challenge_method: field(Schema.String)
})

/** POST /recover — a recovery mail (supabase-js `resetPasswordForEmail`); `{}` whoever asked. */
export const handle = (body: typeof Body.Type, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    yield* recover({
      email: body.email ?? "",
      redirectTo: new URLSearchParams(request.query).get("redirect_to") ?? "",
      codeChallenge: body.code_challenge ?? "",
      codeChallengeMethod: body.code_challenge_method ?? ""
    })
    return HttpMessage.json({})
  })
