import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { generateLink } from "../../../../application/auth/admin/GenerateLink.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as AuthJson from "../AuthJson.js"
import { field } from "../Endpoint.js"

export const Body = Schema.Struct({
  type: field(Schema.String),
  email: field(Schema.String),
  new_email: field(Schema.String),
  password: field(Schema.String),
  data: field(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  redirect_to: field(Schema.String)
})

/**
 * POST /admin/generate_link — supabase-js `admin.generateLink`. Supabase Auth's answer: the
 * user's fields, with `action_link`, `email_otp`, `hashed_token`, `verification_type` and
 * `redirect_to` beside them (supabase-js splits them into `properties` and `user`).
 */
export const handle = (body: typeof Body.Type, _: unknown, request: HttpRequest) =>
  Effect.gen(function* () {
    const link = yield* generateLink({
      type: body.type ?? "",
      email: body.email ?? "",
      newEmail: body.new_email ?? "",
      password: body.password ?? "",
      data: body.data ?? {},
      redirectTo: body.redirect_to ?? new URLSearchParams(request.query).get("redirect_to") ?? ""
    })
    return HttpMessage.json({
      ...AuthJson.user(link.user, link.identities),
      action_link: link.actionLink,
      email_otp: link.emailOtp,
      hashed_token: link.hashedToken,
      verification_type: link.verificationType,
      redirect_to: link.redirectTo
    })
  })
