import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { signInAnonymously } from "../../../application/auth/SignInAnonymously.js"
import { signup } from "../../../application/auth/Signup.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as AuthJson from "./AuthJson.js"
import * as ClientInfo from "./ClientInfo.js"
import { field, type Limit } from "./Endpoint.js"

export const Body = Schema.Struct({
  email: field(Schema.String),
  phone: field(Schema.String),
  password: field(Schema.String),
  data: field(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  channel: field(Schema.String),
  code_challenge: field(Schema.String),
  code_challenge_method: field(Schema.String)
})

type Body = typeof Body.Type

const isAnonymous = (body: Body) => (body.email ?? "") === "" && (body.phone ?? "") === ""

/**
 * Which limit counts a sign-up: with neither an email nor a phone number it is an anonymous
 * sign-in, under a limit of its own (`RATE_LIMIT_ANONYMOUS_USERS`), as in Supabase Auth.
 */
export const limitOf = (body: Body): Limit => (isAnonymous(body) ? "anonymous" : "otp")

/**
 * POST /signup — with an email or a phone number, a sign-up (supabase-js `signUp`); with
 * neither, an anonymous sign-in (`signInAnonymously`).
 */
export const handle = (body: Body, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    const client = ClientInfo.of(request)
    const data = body.data ?? {}
    if (isAnonymous(body)) {
      const grant = yield* signInAnonymously(data, client)
      return HttpMessage.json(AuthJson.session(grant))
    }
    const outcome = yield* signup({
      email: body.email ?? "",
      phone: body.phone ?? "",
      password: body.password ?? "",
      data,
      codeChallenge: body.code_challenge ?? "",
      codeChallengeMethod: body.code_challenge_method ?? "",
      redirectTo: new URLSearchParams(request.query).get("redirect_to") ?? "",
      channel: body.channel ?? "",
      client
    })
    return outcome._tag === "SignedIn"
      ? HttpMessage.json(AuthJson.session(outcome.grant))
      : HttpMessage.json(AuthJson.user(outcome.user, outcome.identities))
  })
