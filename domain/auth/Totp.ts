import * as Data from "effect/Data"
import * as Option from "effect/Option"

/**
 * The TOTP parameters of Supabase Auth's factors (RFC 6238 with pquerna/otp's defaults): HMAC-SHA-1
 * over 30-second steps counted from the unix epoch, 6 digits, a 20-byte secret; a code of the
 * step before or after the current one is accepted too (`Skew: 1`). Authenticator apps assume
 * these when the `otpauth://` URI names them, and imported factors were made with them.
 */
export const parameters = {
  algorithm: "SHA1",
  digits: 6,
  periodSeconds: 30,
  secretBytes: 20,
  skew: 1
} as const

/** The time step (the RFC's counter T) that `now` falls in. */
export const stepAt = (now: Date): number => Math.floor(now.getTime() / 1000 / parameters.periodSeconds)

/** The steps whose codes are accepted at `now`, oldest first: the current one ± the skew. */
export const window = (now: Date): ReadonlyArray<number> => {
  const current = stepAt(now)
  const steps: Array<number> = []
  for (let step = current - parameters.skew; step <= current + parameters.skew; step++) steps.push(step)
  return steps
}

/** Whether a submitted code has the shape of one: exactly the digits, nothing else. */
export const isWellFormed = (code: string): boolean =>
  code.length === parameters.digits && /^[0-9]+$/.test(code)

/** What a submitted code comes to. */
export type Decision = Data.TaggedEnum<{
  /** Accepted as the code of `step`, which becomes the factor's last used step. */
  Accepted: { readonly step: number }
  /** The code is right, but for a step at or before the last one accepted: a replay. */
  Replayed: {}
  /** No step of the window has this code. */
  Invalid: {}
}>
export const Decision = Data.taggedEnum<Decision>()

/**
 * The never-twice rule. `matching` are the steps of the window whose code equals the one
 * submitted (computed by the caller with the factor's secret; usually none or one, more only if
 * two steps happen to share a code). A code is accepted for the earliest matching step after
 * the last accepted one, so a code is never accepted twice, nor one older than a code already
 * used. Supabase Auth has no such record: there the same code passes again with a fresh
 * challenge for as long as it stays in the window (docs/decisions/0015).
 */
export const decide = (matching: ReadonlyArray<number>, lastUsedStep: Option.Option<number>): Decision => {
  if (matching.length === 0) return Decision.Invalid()
  const fresh = matching
    .filter((step) => Option.match(lastUsedStep, { onNone: () => true, onSome: (last) => step > last }))
    .sort((a, b) => a - b)
  const first = fresh[0]
  return first === undefined ? Decision.Replayed() : Decision.Accepted({ step: first })
}

/**
 * The label of the `otpauth://` URI: `issuer:account`, the account being the user's email (empty
 * for a user without one), as Supabase Auth's `totp.Generate` writes it.
 */
export const label = (issuer: string, account: string): string => `${issuer}:${account}`

/**
 * The issuer of a new TOTP factor: the request's, else the host of `SITE_URL` (with its port, as
 * Go's `URL.Host`).
 */
export const issuerOf = (requested: string, siteUrl: URL): string =>
  requested === "" ? siteUrl.host : requested
