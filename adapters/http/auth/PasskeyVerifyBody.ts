import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { VerifyRequest } from "../../../application/auth/PasskeyInput.js"
import type { HttpRequest } from "../HttpMessage.js"
import { body, field } from "./Endpoint.js"

/**
 * `{challenge_id, credential}` as supabase-js's passkey verifies send them: `credential` is the
 * serialised `PublicKeyCredential`, any JSON here (the ceremony reads it); absent or `null` is
 * none, as Go leaves a `json.RawMessage` nil.
 */
const Body = Schema.Struct({ challenge_id: field(Schema.String), credential: field(Schema.Unknown) })

export const input = (request: HttpRequest) =>
  Effect.map(
    body(Body)(request),
    (read): VerifyRequest => ({
      challengeId: read.challenge_id ?? "",
      credential: Option.fromNullable(read.credential)
    })
  )
