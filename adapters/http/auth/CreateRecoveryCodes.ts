import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { createRecoveryCodes, type IssuedCodes } from "../../../application/auth/CreateRecoveryCodes.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import { body, field } from "./Endpoint.js"

/** `{friendly_name?}`: auth-js sends a body only when a name was given. */
const Body = Schema.Struct({ friendly_name: field(Schema.String) })

export const input = (request: HttpRequest) =>
  Effect.map(body(Body)(request), (read) => read.friendly_name ?? "")

/**
 * A set as auth-js's `AuthMFARecoveryCodesGenerateResponseData` reads it: the codes in canonical
 * form, this once. Also the answer of a regeneration.
 */
export const issued = (set: IssuedCodes) =>
  HttpMessage.json({
    id: set.factor.id,
    type: "recovery_code",
    friendly_name: set.factor.friendlyName,
    total: set.codes.length,
    codes: set.codes.map(Redacted.value)
  })

/** POST /factors/recovery-codes — auth-js `mfa.recoveryCodes.generate`. */
export const handle = (friendlyName: string, signedIn: SignedIn) =>
  Effect.map(createRecoveryCodes(signedIn, friendlyName), issued)
