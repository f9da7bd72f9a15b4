import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Time from "../Time.js"

/**
 * Single-use recovery codes: a user who lost their authenticator proves the second factor with
 * one of them. The wire is auth-js's experimental `mfa.recoveryCodes` API; Supabase Auth's server
 * has none yet, so the rules below are ours (docs/decisions/0015).
 */

/** How many codes a set has. */
export const setSize = 10

/** Characters per code. */
export const codeLength = 16

/**
 * The symbols a code is drawn from: digits 2–9 and lower-case letters without i, l, o and u, so
 * that no two are confused when read aloud or copied by hand. 30 symbols, 16 of them: about 78
 * bits per code, enough to keep codes as plain SHA-256 digests (decision 0003).
 */
export const alphabet = "23456789abcdefghjkmnpqrstvwxyz"

/** The name the set gets when the request gives none. */
export const defaultFriendlyName = "Recovery codes"

/**
 * The largest byte value that maps onto the alphabet without bias: bytes at or above it are
 * skipped (rejection sampling), so every symbol is equally likely.
 */
const unbiasedBound = 256 - (256 % alphabet.length)

/**
 * Codes drawn from random bytes: each byte below the bound picks a symbol, others are skipped.
 * Returns the codes it could complete, which is all of them when the caller supplies enough
 * bytes (`bytesNeeded`); the caller asks for more if not.
 */
export const fromRandomBytes = (bytes: Uint8Array, count: number = setSize): ReadonlyArray<string> => {
  const codes: Array<string> = []
  let current = ""
  for (const byte of bytes) {
    if (codes.length === count) break
    if (byte >= unbiasedBound) continue
    current += alphabet.charAt(byte % alphabet.length)
    if (current.length === codeLength) {
      codes.push(current)
      current = ""
    }
  }
  return codes
}

/** Random bytes that complete a set with overwhelming likelihood (one byte in 16 is skipped). */
export const bytesNeeded = (count: number = setSize): number => count * codeLength * 2

/**
 * A code as the user typed it, in canonical form: letter case, whitespace and `-` separators are
 * ignored, as auth-js documents (`K4M9-X7QP-2AB8-HT3Z` is `k4m9x7qp2ab8ht3z`).
 */
export const normalize = (input: string): string => input.replace(/[\s-]+/g, "").toLowerCase()

/** Whether a normalised input can be a code at all; anything else fails without a lookup. */
export const isWellFormed = (canonical: string): boolean =>
  canonical.length === codeLength && [...canonical].every((symbol) => alphabet.includes(symbol))

/**
 * The lockout: after `maxFailures` wrong codes in a row, verification is refused for `lockFor`
 * (429 `mfa_recovery_codes_locked`); a success or a new set clears the count.
 */
export interface LockoutPolicy {
  readonly maxFailures: number
  readonly lockFor: Duration.Duration
}

export const lockoutPolicy: LockoutPolicy = { maxFailures: 5, lockFor: Duration.minutes(15) }

/** The attempt record of a user's set, kept on its factor. */
export interface Attempts {
  readonly failedAttempts: number
  readonly lockedUntil: Option.Option<Date>
}

export const noAttempts: Attempts = { failedAttempts: 0, lockedUntil: Option.none() }

/** Whether verification is locked at `now`; the lock ends at `lockedUntil` exactly. */
export const isLocked = (attempts: Attempts, now: Date): boolean =>
  Option.exists(attempts.lockedUntil, (until) => now.getTime() < until.getTime())

/** What one verification attempt comes to. */
export type Outcome = Data.TaggedEnum<{
  /** Locked: nothing is checked, nothing counted. */
  Locked: { readonly until: Date }
  /** The code matched an unused code of the set: it is spent, the count cleared. */
  Accepted: {}
  /** Wrong, used or malformed: one more failure, which may start the lock. */
  Rejected: { readonly attempts: Attempts }
}>
export const Outcome = Data.taggedEnum<Outcome>()

/**
 * The attempt rule: `matched` says whether the normalised code matched an unused code of the
 * set. A lock starts with the count at zero, so once it has run out the user has
 * `maxFailures` tries again.
 */
export const attempt = (policy: LockoutPolicy, attempts: Attempts, matched: boolean, now: Date): Outcome => {
  if (Option.isSome(attempts.lockedUntil) && isLocked(attempts, now)) {
    return Outcome.Locked({ until: attempts.lockedUntil.value })
  }
  if (matched) return Outcome.Accepted()
  const failures = attempts.failedAttempts + 1
  return failures >= policy.maxFailures
    ? Outcome.Rejected({
        attempts: { failedAttempts: 0, lockedUntil: Option.some(Time.plus(now, policy.lockFor)) }
      })
    : Outcome.Rejected({ attempts: { failedAttempts: failures, lockedUntil: Option.none() } })
}

/** The record after an attempt's outcome. */
export const after = (attempts: Attempts, outcome: Outcome): Attempts =>
  Outcome.$match(outcome, {
    Locked: () => attempts,
    Accepted: () => noAttempts,
    Rejected: ({ attempts: next }) => next
  })

/** What `GET /factors/recovery-codes` reports of a set: its size and its unused codes. */
export interface Status {
  readonly total: number
  readonly remaining: number
}

export const status = (usedAt: ReadonlyArray<Option.Option<Date>>): Status => ({
  total: usedAt.length,
  remaining: usedAt.filter(Option.isNone).length
})
