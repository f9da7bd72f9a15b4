import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Introspection, introspect } from "../../../application/oauth/Introspect.js"
import { invalidRequest } from "../../../application/oauth/OAuthError.js"
import * as Form from "./Form.js"
import { json } from "./Json.js"

const seconds = (date: Date) => Math.floor(date.getTime() / 1000)

/** RFC 7662 §2.2. */
const body = (info: Introspection) =>
  info.active
    ? {
        active: true,
        client_id: info.clientId,
        sub: info.userId,
        ...Option.match(info.scope, { onNone: () => ({}), onSome: (scope) => ({ scope }) }),
        ...Option.match(info.resource, { onNone: () => ({}), onSome: (aud) => ({ aud }) }),
        iss: info.issuer,
        exp: seconds(info.expiresAt),
        iat: seconds(info.issuedAt),
        token_type: info.kind === "access" ? "Bearer" : "refresh_token"
      }
    : { active: false }

/** POST /introspect (RFC 7662). */
export const handle = (params: Form.Params) =>
  Effect.gen(function* () {
    const token = Form.get(params, "token")
    if (Option.isNone(token)) return yield* invalidRequest("token is required")
    return json(body(yield* introspect(token.value, Form.get(params, "token_type_hint"))))
  })
