import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { updateUser } from "../../../application/auth/UpdateUser.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as AuthJson from "./AuthJson.js"
import { field } from "./Endpoint.js"

const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** The body of PUT /user (supabase-js `UserAttributes`). */
export const Body = Schema.Struct({
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

/** PUT /user — changes of the signed-in user (supabase-js `updateUser`; Supabase Auth's `UserUpdate`). */
export const handle = (body: typeof Body.Type, signedIn: SignedIn, request: HttpRequest) =>
  Effect.map(
    updateUser(signedIn, {
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
    }),
    (updated) => HttpMessage.json(AuthJson.user(updated.user, updated.identities, updated.factors))
  )
