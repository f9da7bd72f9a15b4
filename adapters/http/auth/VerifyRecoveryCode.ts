import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { verifyRecoveryCode } from "../../../application/auth/VerifyRecoveryCode.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as AuthJson from "./AuthJson.js"
import { body, field } from "./Endpoint.js"

/** `{code}` as auth-js `mfa.recoveryCodes.verify` sends it. */
const Body = Schema.Struct({ code: field(Schema.String) })

export const input = (request: HttpRequest) => Effect.map(body(Body)(request), (read) => read.code ?? "")

/**
 * POST /factors/recovery-codes/verify — auth-js `mfa.recoveryCodes.verify`: the raised session as
 * `/token` answers one (access token with `aal: "aal2"`, the new refresh token, the user).
 */
export const handle = (code: string, signedIn: SignedIn) =>
  Effect.map(verifyRecoveryCode(signedIn, code), (grant) => HttpMessage.json(AuthJson.session(grant)))
