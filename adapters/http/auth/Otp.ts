import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as ClientInput from "../../../application/auth/ClientInput.js"
import { sendMagicLink } from "../../../application/auth/MagicLink.js"
import { sendPhoneOtp } from "../../../application/auth/PhoneOtp.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import { field } from "./Endpoint.js"
import * as Refusal from "./Refusal.js"

export const Body = Schema.Struct({
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
 * (MagicLink.ts; `create_user` defaults to true); with a phone, a texted code (PhoneOtp.ts),
 * answered with the gateway's `message_id` for a confirmed user, as Supabase Auth does.
 */
export const handle = (body: typeof Body.Type, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    const email = body.email ?? ""
    const phone = body.phone ?? ""
    if (email !== "" && phone !== "") {
      return yield* new Refusal.OtpRequestInvalid({ problem: "email_and_phone" })
    }
    if (email !== "" && (body.channel ?? "") !== "") {
      return yield* new Refusal.OtpRequestInvalid({ problem: "channel_with_email" })
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
      // A texted code ends in a session, not a PKCE flow; the parameters are still checked, as
      // Supabase Auth checks them for every /otp request.
      yield* ClientInput.pkceChallenge(body.code_challenge ?? "", body.code_challenge_method ?? "")
      const sent = yield* sendPhoneOtp({
        phone,
        createUser: body.create_user ?? true,
        data: body.data ?? {},
        channel: body.channel ?? ""
      })
      return HttpMessage.json(
        Option.match(sent.messageId, { onNone: () => ({}), onSome: (id) => ({ message_id: id }) })
      )
    }
    return yield* new Refusal.OtpRequestInvalid({ problem: "no_contact" })
  })
