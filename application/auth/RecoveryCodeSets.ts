import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Mail from "../../domain/auth/Mail.js"
import * as RecoveryCodes from "../../domain/auth/RecoveryCodes.js"
import type { SecretHash } from "../../domain/Ids.js"
import type { User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { AuthSettings } from "./AuthSettings.js"
import { requireNotAnonymous, sessionAal } from "./FactorInput.js"
import { MfaSettings } from "./MfaSettings.js"
import { MailOutbox } from "./ports/MailOutbox.js"

/**
 * What the recovery-code use cases share: drawing a set, the aal2 rule of the managing verbs,
 * and the notifications they queue (docs/decisions/0015, "Recovery codes").
 */

/** A new set: the codes in the clear (shown once) and their digests (stored). */
export interface NewSet {
  readonly codes: ReadonlyArray<Redacted.Redacted<string>>
  readonly hashes: ReadonlyArray<SecretHash>
}

/**
 * `RecoveryCodes.setSize` codes from the random source. Rejection sampling may leave a draw
 * short (so rarely that a second draw is practically never needed); the loop draws again then.
 */
export const draw = Effect.gen(function* () {
  const secrets = yield* Secrets
  let codes: ReadonlyArray<string> = []
  while (codes.length < RecoveryCodes.setSize) {
    const bytes = yield* secrets.bytes(RecoveryCodes.bytesNeeded())
    codes = RecoveryCodes.fromRandomBytes(Redacted.value(bytes))
  }
  const hashes = yield* Effect.forEach(codes, (code) => secrets.hash(Redacted.make(code)))
  return { codes: codes.map((code) => Redacted.make(code)), hashes } satisfies NewSet
})

/**
 * What making or remaking a set asks first: not an anonymous user's, and recovery codes switched
 * on (`MFA_RECOVERY_CODES_ENROLL_ENABLED`; off: `mfa_recovery_codes_enroll_not_enabled`).
 */
export const requireEnrolment = (signedIn: SignedIn) =>
  Effect.gen(function* () {
    yield* requireNotAnonymous(signedIn)
    const mfa = yield* MfaSettings
    if (!mfa.switches.recovery_code.enroll) {
      return yield* new AuthError.FactorEnrollDisabled({ factorType: "recovery_code" })
    }
  })

/** The managing verbs (create, regenerate, delete) need the token to claim aal2. */
export const requireAal2 = (signedIn: SignedIn): Effect.Effect<void, AuthError.Aal2Required> =>
  sessionAal(signedIn) === "aal2"
    ? Effect.void
    : Effect.fail(new AuthError.Aal2Required({ action: "manage_recovery_codes" }))

/**
 * A notification of `kind` to the user's address with Supabase Auth's factor-mail variables
 * (`SiteURL`, `Email`, `FactorType`, `Data`) and `more`, when its switch is on and the user has
 * an address; for the caller to run in the transaction of the change it tells of.
 */
export const notify = (
  user: User,
  kind: Mail.Notification,
  now: Date,
  more: Readonly<Record<string, unknown>> = {}
) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    if (!settings.notifications.has(kind) || Option.isNone(user.email)) return
    const to = user.email.value
    yield* Effect.flatMap(MailOutbox, (outbox) =>
      outbox.enqueue(
        new Mail.Message({
          kind,
          to,
          variables: {
            SiteURL: settings.siteUrl,
            Email: to,
            FactorType: "recovery_code",
            Data: user.userMetadata,
            ...more
          }
        }),
        now
      )
    )
  })
