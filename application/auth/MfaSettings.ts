import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Option from "effect/Option"
import type * as Factor from "../../domain/auth/Factor.js"

/** A factor type's `…_ENROLL_ENABLED` and `…_VERIFY_ENABLED`. */
export interface FactorSwitches {
  readonly enroll: boolean
  readonly verify: boolean
}

/** The WebAuthn relying party: `WEBAUTHN_RP_ID`, `WEBAUTHN_RP_DISPLAY_NAME`, `WEBAUTHN_RP_ORIGINS`. */
export interface RelyingParty {
  /** The domain credentials are scoped to (`rp.id`). */
  readonly id: string
  /** `rp.name` in the creation options. */
  readonly displayName: string
  /** The origins a ceremony's client data may name. */
  readonly origins: ReadonlyArray<string>
}

/**
 * What the factor, recovery-code and passkey use cases read of the configuration, decided at
 * start (docs/decisions/0015, "Configuration"). Kept beside `AuthSettings` rather than in it:
 * only these use cases read it.
 */
export class MfaSettings extends Context.Tag("latchkey/auth/MfaSettings")<
  MfaSettings,
  {
    /** `MFA_MAX_ENROLLED_FACTORS`, `MFA_MAX_VERIFIED_FACTORS`. */
    readonly limits: Factor.Limits
    /** `MFA_FACTOR_EXPIRY_DURATION`: how long an unverified factor nobody challenged is kept. */
    readonly unverifiedLifetime: Duration.Duration
    /** `MFA_CHALLENGE_EXPIRY_DURATION`: how long a factor challenge can be verified. */
    readonly challengeLifetime: Duration.Duration
    /** Each factor type's switches (`MFA_TOTP_*`, `MFA_PHONE_*`, `MFA_WEB_AUTHN_*`, `MFA_RECOVERY_CODES_*`). */
    readonly switches: Readonly<Record<Factor.FactorType, FactorSwitches>>
    /** Texted factor codes. */
    readonly phone: {
      /** `MFA_PHONE_OTP_LENGTH`: digits of a code, 6 to 10. */
      readonly codeLength: number
      /** `MFA_PHONE_MAX_FREQUENCY`: least time between two challenges of one phone factor. */
      readonly spacing: Duration.Duration
      /** The text that carries `code` (`MFA_PHONE_TEMPLATE` rendered). */
      readonly text: (code: string) => string
    }
    /** None while neither passkeys nor WebAuthn factors are on. */
    readonly relyingParty: Option.Option<RelyingParty>
    /** Passkey sign-in and registration. */
    readonly passkeys: {
      /** `PASSKEY_ENABLED`. */
      readonly enabled: boolean
      /** `PASSKEY_MAX_PASSKEYS_PER_USER`. */
      readonly maxPerUser: number
      /** `WEBAUTHN_CHALLENGE_EXPIRY_DURATION`: how long a ceremony's challenge can be answered. */
      readonly challengeLifetime: Duration.Duration
    }
  }
>() {}
