import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as FactorChallenge from "../../domain/auth/FactorChallenge.js"
import * as Mail from "../../domain/auth/Mail.js"
import * as Totp from "../../domain/auth/Totp.js"
import { constantTimeEqual } from "../../domain/ConstantTime.js"
import type { User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { AuthSettings } from "./AuthSettings.js"
import { loadFactor } from "./FactorInput.js"
import * as IssueSession from "./IssueSession.js"
import { MfaSettings } from "./MfaSettings.js"
import { FactorStore, type StoredFactor } from "./ports/FactorStore.js"
import { MailOutbox } from "./ports/MailOutbox.js"
import { SessionStore } from "./ports/SessionStore.js"
import { TotpCodes } from "./ports/TotpCodes.js"
import { Transactions } from "./ports/Transactions.js"

/** `POST /factors/{factor_id}/verify` as the handler reads it. */
export interface VerifyRequest {
  /** The path's `{factor_id}`, unchecked. */
  readonly factorId: string
  readonly challengeId: string
  readonly code: string
  /** The client address; it must be the challenge's. */
  readonly ipAddress: string
}

const isChallengeId = Schema.is(FactorChallenge.ChallengeId)

/** What a right code proves, decided before anything is written. */
type Proof =
  /** A TOTP code, accepted for this time step (`Totp.decide`). */
  | { readonly _tag: "Totp"; readonly step: number }
  /** A texted code. */
  | { readonly _tag: "Phone" }

/**
 * A TOTP code against the window at `now` and the factor's last accepted step: the steps whose
 * code it is (each compared in constant time), then the never-twice rule.
 */
const totpProof = (stored: StoredFactor, code: string, now: Date) =>
  Effect.gen(function* () {
    const codes = yield* TotpCodes
    const failed = new AuthError.FactorVerificationFailed({ factorType: "totp" })
    if (Option.isNone(stored.secret) || !Totp.isWellFormed(code)) return yield* failed
    const secret = Redacted.make(stored.secret.value)
    const matching = Totp.window(now).filter((step) => constantTimeEqual(codes.codeAt(secret, step), code))
    const decision = Totp.decide(matching, stored.lastTotpStep)
    if (decision._tag !== "Accepted") return yield* failed
    return { _tag: "Totp", step: decision.step } satisfies Proof
  })

/** A texted code against the digest its challenge keeps. */
const phoneProof = (challenge: FactorChallenge.FactorChallenge, code: string) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const digest = yield* secrets.hash(Redacted.make(code))
    const expected = challenge.otpCodeHash
    if (Option.isNone(expected) || !constantTimeEqual(digest, expected.value)) {
      return yield* new AuthError.FactorVerificationFailed({ factorType: "phone" })
    }
    return { _tag: "Phone" } satisfies Proof
  })

/** The "factor enrolled" mail, when `MAILER_NOTIFICATIONS_MFA_FACTOR_ENROLLED_ENABLED` is on. */
const announceEnrolment = (user: User, factorType: string, now: Date) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    if (!settings.notifications.has("mfa_factor_enrolled_notification") || Option.isNone(user.email)) return
    const to = user.email.value
    yield* Effect.flatMap(MailOutbox, (outbox) =>
      outbox.enqueue(
        new Mail.Message({
          kind: "mfa_factor_enrolled_notification",
          to,
          variables: { SiteURL: settings.siteUrl, Email: to, FactorType: factorType, Data: user.userMetadata }
        }),
        now
      )
    )
  })

/**
 * POST /factors/{factor_id}/verify (supabase-js `mfa.verify`): a TOTP or texted code for a
 * challenge of the user's factor. Checked in Supabase Auth's order (docs/decisions/0015,
 * "Verify"); then, in one transaction: the challenge spent (once: of concurrent verifies exactly
 * one goes on), a TOTP code's step recorded (never accepted twice), the factor verified the first
 * time (with its mail), the session raised to aal2 with the factor's method and a new refresh
 * token (`SessionStore.raise`: the one held before is a reuse from now on), the user's other aal1
 * sessions ended, their other unverified factors of the type deleted. The answer is the raised
 * session's, as `/token` gives it.
 */
export const verifyFactor = Telemetry.fn("VerifyFactor.verifyFactor")(
  (signedIn: SignedIn, request: VerifyRequest) =>
    Effect.gen(function* () {
      const stored = yield* loadFactor(signedIn, request.factorId)
      const factor = stored.factor
      yield* Telemetry.annotate("factor.id", factor.id)
      if (factor.factorType !== "webauthn" && request.code === "") {
        return yield* new AuthError.InvalidInput({ message: "Code needs to be non-empty" })
      }
      const mfa = yield* MfaSettings
      if (!mfa.switches[factor.factorType].verify) {
        return yield* new AuthError.FactorVerifyDisabled({ factorType: factor.factorType, at: "verify" })
      }
      if (factor.factorType !== "totp" && factor.factorType !== "phone") {
        return yield* new AuthError.InvalidInput({
          message: "factor_type needs to be totp or phone to be verified with a code"
        })
      }
      const store = yield* FactorStore
      const challengeId = request.challengeId
      if (!isChallengeId(challengeId)) return yield* new AuthError.ChallengeNotFound()
      const challenge = yield* store.findChallenge(factor.id, challengeId)
      if (Option.isNone(challenge)) return yield* new AuthError.ChallengeNotFound()
      const now = new Date(yield* Clock.currentTimeMillis)
      const standing = FactorChallenge.standing(
        challenge.value,
        request.ipAddress,
        now,
        mfa.challengeLifetime
      )
      if (standing._tag === "Spent") return yield* new AuthError.ChallengeUsedOrMoved()
      if (standing._tag === "Expired") {
        yield* store.takeChallenge(factor.id, challengeId)
        return yield* new AuthError.FactorChallengeExpired({ challengeId })
      }
      const session = signedIn.session
      if (Option.isNone(session)) return yield* new AuthError.SessionFromJwtNotFound()
      const proof =
        factor.factorType === "totp"
          ? yield* totpProof(stored, request.code, now)
          : yield* phoneProof(challenge.value, request.code)

      const secrets = yield* Secrets
      const sessions = yield* SessionStore
      const refreshToken = yield* secrets.token("refresh")
      const child = yield* secrets.hash(refreshToken)
      const userId = signedIn.user.id
      const raised = yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(
          Effect.gen(function* () {
            // Spent with the code's step: of concurrent verifies of one challenge, or of one code,
            // only one goes past here.
            const used = yield* store.useChallenge(
              factor.id,
              challengeId,
              now,
              proof._tag === "Totp" ? Option.some(proof.step) : Option.none()
            )
            if (used._tag === "Gone") return yield* new AuthError.ChallengeUsedOrMoved()
            if (used._tag === "StepRefused") {
              return yield* new AuthError.FactorVerificationFailed({ factorType: "totp" })
            }
            // A verified factor's verify is a step up; only an enrolment's first verify marks it.
            const firstVerify =
              factor.status === "unverified"
                ? yield* store.markVerified(userId, factor.id, now, Option.none())
                : Option.none()
            const raised = yield* sessions.raise({
              sessionId: session.value.id,
              factorId: factor.id,
              factorType: factor.factorType,
              child,
              now
            })
            if (Option.isNone(raised)) return yield* new AuthError.SessionFromJwtNotFound()
            // The factors as the access token's check read them with the user, a moment ago.
            for (const other of signedIn.factors) {
              if (
                other.id !== factor.id &&
                other.factorType === factor.factorType &&
                other.status === "unverified"
              ) {
                yield* store.remove(userId, other.id)
              }
            }
            if (Option.isSome(firstVerify)) yield* announceEnrolment(signedIn.user, factor.factorType, now)
            return raised.value
          })
        )
      )
      const account = raised.account
      if (Option.isNone(account)) return yield* new AuthError.SessionFromJwtNotFound()
      const { identities, user } = account.value
      const access = yield* IssueSession.accessTokenFor(user, raised.session, now)
      return {
        access,
        refreshToken,
        user,
        identities,
        session: raised.session
      } satisfies IssueSession.Grant
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
