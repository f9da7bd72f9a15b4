import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { challengeFactor } from "../../../application/auth/ChallengeFactor.js"
import type { FactorOwner } from "../../../application/auth/FactorInput.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import { body, field } from "./Endpoint.js"

/**
 * What GoTrue reads of the body: `channel` (phone factors). auth-js also sends `factorId` and,
 * for WebAuthn, `webauthn`; unknown keys are ignored as there.
 */
const Body = Schema.Struct({ channel: field(Schema.String) })

/** The body's channel (the path's factor is the caller's: `factorOwner`). */
export const input = (request: HttpRequest) =>
  Effect.map(body(Body)(request), (read) => ({ channel: read.channel ?? "" }))

/**
 * POST /factors/{factor_id}/challenge — supabase-js `mfa.challenge`: `{id, type, expires_at}`,
 * and for a WebAuthn factor `webauthn: {type, credential_options: {publicKey}}`, the options in
 * their JSON form (auth-js deserialises the base64url buffers).
 */
export const handle = (
  read: Effect.Effect.Success<ReturnType<typeof input>>,
  owner: FactorOwner,
  request: HttpRequest
) =>
  Effect.map(challengeFactor(owner, { ...read, ipAddress: request.clientIp }), (challenge) =>
    HttpMessage.json({
      id: challenge.id,
      type: challenge.type,
      expires_at: challenge.expiresAt,
      ...Option.match(challenge.webAuthn, {
        onNone: () => ({}),
        onSome: (ceremony) => ({
          webauthn: { type: ceremony.type, credential_options: { publicKey: ceremony.options } }
        })
      })
    })
  )
