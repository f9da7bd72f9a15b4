/**
 * Error codes of auth-js (`@supabase/auth-js` 2.119.1, `lib/error-codes.ts`) that Supabase
 * Auth's server does not have at bc32168: those of its experimental recovery-code client, in
 * that file's order. The service answers with them (docs/decisions/0015); AuthError.test.ts
 * holds ErrorCode to Supabase Auth's catalogue with these placed where auth-js places them.
 */
export const recoveryCodes = [
  "mfa_recovery_codes_enroll_not_enabled",
  "mfa_recovery_codes_verify_not_enabled",
  "mfa_recovery_codes_locked",
  "mfa_recovery_codes_sole_factor"
] as const

/** The server code auth-js lists them after. */
export const recoveryCodesAfter = "mfa_webauthn_verify_not_enabled"
