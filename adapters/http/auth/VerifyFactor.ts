import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { FactorOwner } from "../../../application/auth/FactorInput.js"
import { verifyFactor } from "../../../application/auth/VerifyFactor.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as AuthJson from "./AuthJson.js"
import { body, field } from "./Endpoint.js"

/**
 * `{challenge_id, code}` as supabase-js `mfa.verify` sends them, or for a WebAuthn factor
 * `{challenge_id, webauthn: {type, rpId, rpOrigins, credential_response}}`: the relying party is
 * the server's, so only `type` and `credential_response` (any JSON, checked by the ceremony) are
 * read.
 */
const Body = Schema.Struct({
  challenge_id: field(Schema.String),
  code: field(Schema.String),
  webauthn: field(Schema.Struct({ type: field(Schema.String), credential_response: field(Schema.Unknown) }))
})

/** The body's challenge and code or WebAuthn answer (the path's factor is the caller's). */
export const input = (request: HttpRequest) =>
  Effect.map(body(Body)(request), (read) => ({
    challengeId: read.challenge_id ?? "",
    code: read.code ?? "",
    ...(read.webauthn === undefined
      ? {}
      : {
          webAuthn: {
            type: read.webauthn.type ?? "",
            credentialResponse: Option.fromNullable(read.webauthn.credential_response)
          }
        })
  }))

/**
 * POST /factors/{factor_id}/verify — supabase-js `mfa.verify`: the raised session as `/token`
 * answers one (access token with `aal: "aal2"`, the new refresh token, the user).
 */
export const handle = (
  read: Effect.Effect.Success<ReturnType<typeof input>>,
  owner: FactorOwner,
  request: HttpRequest
) =>
  Effect.map(verifyFactor(owner, { ...read, ipAddress: request.clientIp }), (grant) =>
    HttpMessage.json(AuthJson.session(grant))
  )
