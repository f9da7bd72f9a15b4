import * as Option from "effect/Option"
import { AmrEntry } from "./AccessTokenClaims.js"
import type { FactorId, FactorType } from "./Factor.js"
import type { Aal, Session } from "./Session.js"
import { Session as SessionClass } from "./Session.js"

/**
 * The `amr` method a verified factor adds to its session (Supabase Auth's `amrMethodForFactorType`;
 * a TOTP factor is `totp`, not `mfa/totp`). Recovery codes use auth-js's `mfa/recovery_code`.
 */
export const methodOf: Record<FactorType, string> = {
  totp: "totp",
  phone: "mfa/phone",
  webauthn: "mfa/webauthn",
  recovery_code: "mfa/recovery_code"
}

/**
 * The methods that make a session aal2 (`AMRClaim.IsAAL2Claim`). Every other method — a
 * password, a link, a provider, a passkey — is a first factor: a passkey sign-in is aal1.
 */
export const secondFactorMethods: ReadonlySet<string> = new Set(Object.values(methodOf))

/**
 * Whether a session was begun by a recovery or another mailed or texted link or code, the
 * methods Supabase Auth counts as a recovery (`IsRecovery`): whoever holds such a code could
 * recover the account with it anyway, so such a session sets a password without the old one.
 */
export const begunByRecovery = (amr: ReadonlyArray<AmrEntry>): boolean =>
  amr.some((entry) => entry.method === "recovery" || entry.method === "otp" || entry.method === "magiclink")

/** The level a session's methods give it (`CalculateAALAndAMR`). */
export const levelOf = (amr: ReadonlyArray<AmrEntry>): Aal =>
  amr.some((entry) => secondFactorMethods.has(entry.method)) ? "aal2" : "aal1"

const unixSeconds = (date: Date): number => Math.floor(date.getTime() / 1000)

/**
 * The methods after `method` was used at `now`: one entry per method, a repeated method only
 * moves its time (as `mfa_amr_claims` upserts on session and method), most recent first as
 * access tokens list them; ties keep their order.
 */
export const recordMethod = (
  amr: ReadonlyArray<AmrEntry>,
  method: string,
  now: Date
): ReadonlyArray<AmrEntry> =>
  [new AmrEntry({ method, timestamp: unixSeconds(now) }), ...amr.filter((entry) => entry.method !== method)]
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => b.entry.timestamp - a.entry.timestamp || a.index - b.index)
    .map(({ entry }) => entry)

/**
 * How far a factor verify moves the session's refresh-token generation. Supabase Auth's v2
 * tokens skip a counter value here, so the token the client held before the verify is not the
 * live token's parent: under `Session.present` it cannot be reissued the (now aal2) live token
 * inside the reuse interval, and presenting it again counts as a reuse.
 */
export const generationStep = 2

/**
 * The session after `factor` of `factorType` was verified at `now` (`updateMFASessionAndClaims`
 * with `UpdateAALAndAssociatedFactor`): the factor's method recorded, the level recomputed from
 * the methods, the factor remembered, and a new live refresh token two generations on. The
 * caller hands the client that token with the new access token.
 */
export const raise = (session: Session, factorId: FactorId, factorType: FactorType, now: Date): Session => {
  const amr = recordMethod(session.amr, methodOf[factorType], now)
  return new SessionClass(
    {
      ...session,
      amr,
      aal: levelOf(amr),
      factorId: Option.some(factorId),
      generation: session.generation + generationStep,
      refreshedAt: Option.some(now),
      updatedAt: now
    },
    true
  )
}

/**
 * After a verify raised one session, the user's other sessions below aal2 are signed out
 * (`InvalidateSessionsWithAALLessThan`): a second factor proven once retires every sign-in that
 * did not prove it.
 */
export const signedOutByVerify = (other: Session): boolean => other.aal === "aal1"

/**
 * A session after its factor was removed (`DowngradeSessionsToAAL1`), at unenrol or by an admin:
 * only sessions raised by that factor change; they lose its method and go back to aal1 with no
 * factor — aal1 even if another second-factor method stays in their `amr`, as Supabase Auth
 * stores it (its tokens recompute the level from the AMR claims: docs/compatibility.md).
 */
export const lower = (session: Session, factorId: FactorId, factorType: FactorType, now: Date): Session =>
  Option.contains(session.factorId, factorId)
    ? new SessionClass(
        {
          ...session,
          amr: session.amr.filter((entry) => entry.method !== methodOf[factorType]),
          aal: "aal1",
          factorId: Option.none(),
          updatedAt: now
        },
        true
      )
    : session
