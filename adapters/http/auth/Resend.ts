import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { resend } from "../../../application/auth/Resend.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import { field } from "./Endpoint.js"

export const Body = Schema.Struct({
  type: field(Schema.String),
  email: field(Schema.String),
  phone: field(Schema.String),
  code_challenge: field(Schema.String),
  code_challenge_method: field(Schema.String)
})

/** POST /resend — a confirmation sent again (supabase-js `resend`); `{}` whatever happened to mail. */
export const handle = (body: typeof Body.Type, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    const messageId = yield* resend({
      type: body.type ?? "",
      email: body.email ?? "",
      phone: body.phone ?? "",
      redirectTo: new URLSearchParams(request.query).get("redirect_to") ?? "",
      codeChallenge: body.code_challenge ?? "",
      codeChallengeMethod: body.code_challenge_method ?? ""
    })
    // Supabase Auth names the gateway's message only when a text went out.
    return HttpMessage.json(
      Option.match(messageId, { onNone: () => ({}), onSome: (id) => ({ message_id: id }) })
    )
  })
