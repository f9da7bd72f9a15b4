import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as OTPAuth from "otpauth"
import { TotpCodes } from "../../../application/auth/ports/TotpCodes.js"
import * as Totp from "../../../domain/auth/Totp.js"

/**
 * `TotpCodes` with `otpauth` (docs/decisions/0015, "Libraries"): a TOTP code is the HOTP code of
 * its time step, so the step the domain chose is the counter.
 */
export const layer = Layer.succeed(TotpCodes, {
  secretOf: (bytes) => {
    const value = Redacted.value(bytes)
    // The secret's own bytes: a view may share a larger buffer.
    const buffer = new ArrayBuffer(value.byteLength)
    new Uint8Array(buffer).set(value)
    return new OTPAuth.Secret({ buffer }).base32
  },
  codeAt: (secret, step) =>
    OTPAuth.HOTP.generate({
      secret: OTPAuth.Secret.fromBase32(Redacted.value(secret)),
      algorithm: Totp.parameters.algorithm,
      digits: Totp.parameters.digits,
      counter: step
    })
})
