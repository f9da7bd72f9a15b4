import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type Introspection, introspect } from "../../../application/oauth/Introspect.js"
import { invalidRequest } from "../../../application/oauth/OAuthError.js"
import { constantTimeEqual } from "../../../domain/ConstantTime.js"
import { type HttpRequest, header } from "../HttpMessage.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Form from "./Form.js"
import { json } from "./Json.js"
import { OAuthHttpConfig } from "./OAuthHttpConfig.js"

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

const refused = json(
  { error: "invalid_client", error_description: "present the introspection secret as a Bearer token" },
  401,
  { "www-authenticate": 'Bearer realm="latchkey"' }
)

const disabled = json({ error: "not_found", error_description: "introspection is disabled" }, 404)

/** The resource server presents INTROSPECTION_TOKEN as a Bearer token (RFC 6750 §2.1). */
const presentsSecret = (request: HttpRequest, secret: Redacted.Redacted<string>) => {
  const [scheme, presented] = (header(request, "authorization") ?? "").split(" ")
  return (
    scheme?.toLowerCase() === "bearer" &&
    presented !== undefined &&
    constantTimeEqual(presented, Redacted.value(secret))
  )
}

/** POST /introspect (RFC 7662), for resource servers holding the shared secret. */
export const handle = (request: HttpRequest) =>
  ErrorResponse.answering(
    Effect.gen(function* () {
      const config = yield* OAuthHttpConfig
      if (Option.isNone(config.introspectionToken)) return disabled
      if (!presentsSecret(request, config.introspectionToken.value)) return refused
      const params = yield* Form.unrepeated(request.body)
      const token = Form.get(params, "token")
      if (Option.isNone(token)) return yield* invalidRequest("token is required")
      return json(body(yield* introspect(token.value, Form.get(params, "token_type_hint"))))
    })
  )
