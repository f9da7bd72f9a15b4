import * as Context from "effect/Context"
import type * as Redacted from "effect/Redacted"

/**
 * The code of a TOTP secret for one time step (RFC 6238 with `Totp.parameters`: HMAC-SHA-1,
 * 6 digits), and a secret's text. The window and the never-twice rule are the domain's (`Totp.window`,
 * `Totp.decide`); this computes codes only, where a cryptographic library is at hand.
 */
export class TotpCodes extends Context.Tag("latchkey/auth/TotpCodes")<
  TotpCodes,
  {
    /** Random `bytes` as a secret's base32 (RFC 4648, unpadded), as authenticator apps read it. */
    readonly secretOf: (bytes: Redacted.Redacted<Uint8Array>) => string
    /** The code of the base32 `secret` for time step `step`, zero-padded. */
    readonly codeAt: (secret: Redacted.Redacted<string>, step: number) => string
  }
>() {}
