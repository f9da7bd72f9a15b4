import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { FactorId } from "../../domain/auth/Factor.js"
import * as FactorChallenge from "../../domain/auth/FactorChallenge.js"
import * as Mail from "../../domain/auth/Mail.js"
import * as Totp from "../../domain/auth/Totp.js"
import { CeremonyType } from "../../domain/auth/WebAuthnCeremony.js"
import { constantTimeEqual } from "../../domain/ConstantTime.js"
import { Phone, type User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { AuthSettings } from "./AuthSettings.js"
import type { FactorOwner } from "./FactorInput.js"
import * as IssueSession from "./IssueSession.js"
import { MfaSettings } from "./MfaSettings.js"
import { FactorStore, type Registration, type StoredFactor } from "./ports/FactorStore.js"
import { MailOutbox } from "./ports/MailOutbox.js"
import { SecretsAtRest } from "./ports/SecretsAtRest.js"
import { SessionStore } from "./ports/SessionStore.js"
import { StepUps } from "./ports/StepUps.js"
import { TotpCodes } from "./ports/TotpCodes.js"
import { Transactions } from "./ports/Transactions.js"
import { WebAuthnCeremonies } from "./ports/WebAuthnCeremonies.js"
import * as RelyingParty from "./RelyingParty.js"
import * as SendSms from "./SendSms.js"
import * as WebAuthnFactors from "./WebAuthnFactors.js"

/** The body's `webauthn` (a WebAuthn factor's verify), as sent; `rpId` and `rpOrigins` are not read. */
export interface WebAuthnParams {
  /** `create` or `request`, checked here. */
  readonly type: string
  /** The serialised `PublicKeyCredential`; none when absent. */
  readonly credentialResponse: Option.Option<unknown>
}

/** `POST /factors/{factor_id}/verify` as the handler reads it. */
export interface VerifyRequest {
  readonly challengeId: string
  readonly code: string
  /** A WebAuthn factor's answer; absent when the body has no `webauthn`. */
  readonly webAuthn?: WebAuthnParams
  /** The client address; it must be the challenge's. */
  readonly ipAddress: string
}

const isChallengeId = Schema.is(FactorChallenge.ChallengeId)
const isCeremonyType = Schema.is(CeremonyType)

/** What a right code proves, decided before anything is written. */
type Proof =
  /** A TOTP code, accepted for this time step (`Totp.decide`). */
  | { readonly _tag: "Totp"; readonly step: number }
  /** A texted code. */
  | { readonly _tag: "Phone" }
  /** An unverified WebAuthn factor's registration, to save on it. */
  | { readonly _tag: "Registered"; readonly registration: Registration }
  /** An assertion by the credential of `factorId` (a verified WebAuthn factor of the user). */
  | { readonly _tag: "Asserted"; readonly factorId: FactorId; readonly signCount: number }

/**
 * A TOTP code against the window at `now` and the factor's last accepted step: the steps whose
 * code it is (each compared in constant time), then the never-twice rule.
 */
const totpProof = (stored: StoredFactor, code: string, now: Date) =>
  Effect.gen(function* () {
    const codes = yield* TotpCodes
    // Made only when refused: an error captures a stack trace, which a right code need not pay for.
    const failed = () => new AuthError.FactorVerificationFailed({ factorType: "totp" })
    if (Option.isNone(stored.secret) || !Totp.isWellFormed(code)) return yield* failed()
    const kept = stored.secret.value
    const atRest = yield* SecretsAtRest
    const plaintext = yield* atRest.open(stored.factor.id, kept).pipe(
      Effect.tapError((unreadable) =>
        Effect.logError("a TOTP factor's secret cannot be opened").pipe(
          Effect.annotateLogs({ "factor.id": stored.factor.id, key_id: unreadable.keyId ?? "" })
        )
      ),
      Effect.mapError(() => new AuthError.FactorSecretUnreadable())
    )
    // A secret kept in the clear, or under a key since rotated, is sealed under the sealing key
    // at its first use, whether or not the code is right (as Supabase Auth does). A concurrent
    // verify may have done it first: then this write finds another stored form and does nothing.
    const resealed = yield* atRest.reseal(stored.factor.id, kept, plaintext)
    if (Option.isSome(resealed))
      yield* Effect.flatMap(FactorStore, (store) =>
        store.replaceSecret(stored.factor.id, kept, resealed.value)
      )
    const secret = Redacted.make(plaintext)
    const matching = Totp.window(now).filter((step) => constantTimeEqual(codes.codeAt(secret, step), code))
    const decision = Totp.decide(matching, stored.lastTotpStep)
    if (decision._tag !== "Accepted") return yield* failed()
    return { _tag: "Totp", step: decision.step } satisfies Proof
  })

/**
 * A texted code: judged by a gateway that keeps its own codes (Twilio Verify, which texted one
 * of its own), as Supabase Auth judges it there — a wrong one is 403 `otp_expired`; otherwise,
 * and for a test number's fixed code, against the digest the challenge keeps.
 */
const phoneProof = (
  challenge: FactorChallenge.FactorChallenge,
  number: Option.Option<string>,
  code: string
) =>
  Effect.gen(function* () {
    const verdict = Option.isSome(number)
      ? yield* SendSms.gatewayVerdict(Phone.make(number.value), code, challenge.createdAt)
      : Option.none<boolean>()
    if (Option.isSome(verdict)) {
      if (!verdict.value) return yield* new AuthError.OtpExpired()
      return { _tag: "Phone" } satisfies Proof
    }
    const secrets = yield* Secrets
    const digest = yield* secrets.hash(Redacted.make(code))
    const expected = challenge.otpCodeHash
    if (Option.isNone(expected) || !constantTimeEqual(digest, expected.value)) {
      return yield* new AuthError.FactorVerificationFailed({ factorType: "phone" })
    }
    return { _tag: "Phone" } satisfies Proof
  })

/** A WebAuthn verify's body, checked in Supabase Auth's order before the challenge is looked up. */
const webAuthnAnswer = (params: WebAuthnParams | undefined) =>
  Effect.gen(function* () {
    const invalid = (problem: AuthError.WebAuthnParamsInvalid["problem"]) =>
      new AuthError.WebAuthnParamsInvalid({ problem })
    if (params === undefined) return yield* invalid("missing")
    const type = params.type
    if (!isCeremonyType(type)) return yield* invalid("type")
    const response = params.credentialResponse
    if (Option.isNone(response)) return yield* invalid("response_missing")
    return { type, response: response.value }
  })

/**
 * A WebAuthn answer against the challenge's ceremony and the relying party (Supabase Auth's
 * `verifyWebAuthnFactor`): a registration (`create`) gives the credential to save; an assertion
 * (`request`) must be by the credential of one of the user's verified WebAuthn factors, as its
 * `ValidateLogin` accepts any of them. An answer that is no credential JSON of its kind is 400
 * "Invalid credential_response"; a failed ceremony 422 `mfa_verification_failed` (Supabase Auth:
 * a 500).
 */
const webAuthnProof = (
  signedIn: SignedIn,
  challenge: FactorChallenge.FactorChallenge,
  answer: { readonly type: "create" | "request"; readonly response: unknown }
) =>
  Effect.gen(function* () {
    const ceremonies = yield* WebAuthnCeremonies
    const expected = yield* RelyingParty.expected
    const failed = () => new AuthError.FactorVerificationFailed({ factorType: "webauthn" })
    const malformed = () => new AuthError.WebAuthnParamsInvalid({ problem: "response_malformed" })
    const ceremony = challenge.webAuthn
    // Every WebAuthn factor's challenge has its ceremony.
    if (Option.isNone(ceremony)) return yield* failed()
    if (answer.type === "create") {
      const registered = yield* ceremonies
        .verifyRegistration(answer.response, ceremony.value, expected)
        .pipe(Effect.catchTags({ MalformedCredential: malformed, CeremonyFailed: failed }))
      return {
        _tag: "Registered",
        registration: { credential: registered.credential, aaguid: Option.some(registered.aaguid) }
      } satisfies Proof
    }
    const assertion = yield* ceremonies
      .readAssertion(answer.response)
      .pipe(Effect.catchTag("MalformedCredential", malformed))
    const known = yield* WebAuthnFactors.registeredCredentials(signedIn.user.id)
    const signer = known.find(({ credential }) => credential.credentialId === assertion.credentialId)
    if (signer === undefined) return yield* failed()
    const verified = yield* ceremonies
      .verifyAuthentication(assertion, ceremony.value, signer.credential, expected)
      .pipe(Effect.catchTag("CeremonyFailed", failed))
    return { _tag: "Asserted", factorId: signer.factorId, signCount: verified.signCount } satisfies Proof
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
  ({ signedIn, stored }: FactorOwner, request: VerifyRequest) =>
    Effect.gen(function* () {
      const factor = stored.factor
      if (factor.factorType !== "webauthn" && request.code === "") {
        return yield* new AuthError.FactorCodeMissing()
      }
      const mfa = yield* MfaSettings
      if (!mfa.switches[factor.factorType].verify) {
        return yield* new AuthError.FactorVerifyDisabled({ factorType: factor.factorType, at: "verify" })
      }
      // Recovery codes are verified at /factors/recovery-codes/verify.
      if (factor.factorType === "recovery_code") {
        return yield* new AuthError.FactorTypeUnsupported()
      }
      const answer =
        factor.factorType === "webauthn"
          ? Option.some(yield* webAuthnAnswer(request.webAuthn))
          : Option.none()
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
      const proof: Proof = Option.isSome(answer)
        ? yield* webAuthnProof(signedIn, challenge.value, answer.value)
        : factor.factorType === "totp"
          ? yield* totpProof(stored, request.code, now)
          : yield* phoneProof(challenge.value, stored.factor.phone, request.code)
      // An assertion raises the session by the factor whose credential signed it.
      const raisedBy = proof._tag === "Asserted" ? proof.factorId : factor.id

      const secrets = yield* Secrets
      const sessions = yield* SessionStore
      const refreshToken = yield* secrets.token("refresh")
      const child = yield* secrets.hash(refreshToken)
      const userId = signedIn.user.id

      // The common step up — a verified TOTP or phone factor, no enrolment of its type to clear —
      // in one atomic step (`StepUps`), of the session as the access token's check read it. A
      // session that moved since then is raised as it stands, in the transaction below.
      const otherEnrolments = signedIn.factors.some(
        (other) =>
          other.id !== factor.id && other.factorType === factor.factorType && other.status === "unverified"
      )
      if (
        factor.status === "verified" &&
        (proof._tag === "Totp" || proof._tag === "Phone") &&
        !otherEnrolments
      ) {
        const stepped = yield* Effect.flatMap(StepUps, (stepUps) =>
          stepUps.stepUp({
            sessionId: session.value.id,
            factorId: factor.id,
            factorType: factor.factorType,
            child,
            now,
            challengeId,
            totpStep: proof._tag === "Totp" ? Option.some(proof.step) : Option.none(),
            seen: session.value
          })
        )
        switch (stepped._tag) {
          case "Raised": {
            // The account as the access token's check read it at the start of the request, as
            // Supabase Auth answers a verify with the user its `requireAuthentication` loaded: a
            // step up changes neither the user nor their factors, and a user deleted since has no
            // live session to raise.
            const { factors, identities, user } = signedIn
            const account = Option.some({ user, identities, factors })
            return yield* IssueSession.grantOfRaised({ session: stepped.raised, account }, refreshToken, now)
          }
          case "Gone":
            return yield* new AuthError.ChallengeUsedOrMoved()
          case "StepRefused":
            return yield* new AuthError.FactorVerificationFailed({ factorType: factor.factorType })
          case "Moved":
            break
        }
      }
      const raised = yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(
          Effect.gen(function* () {
            // Spent first, with a TOTP code's step: of concurrent verifies of one challenge, or of
            // one code, only one goes past here. A WebAuthn challenge is deleted, as Supabase Auth
            // deletes it.
            if (factor.factorType === "webauthn") {
              const taken = yield* store.takeChallenge(factor.id, challengeId)
              if (Option.isNone(taken)) return yield* new AuthError.ChallengeUsedOrMoved()
            } else {
              const used = yield* store.useChallenge(
                factor.id,
                challengeId,
                now,
                proof._tag === "Totp" ? Option.some(proof.step) : Option.none()
              )
              if (used._tag === "Gone") return yield* new AuthError.ChallengeUsedOrMoved()
              // Refused only with a step, so only for a TOTP code.
              if (used._tag === "StepRefused") {
                return yield* new AuthError.FactorVerificationFailed({ factorType: factor.factorType })
              }
            }
            if (
              proof._tag === "Asserted" &&
              !(yield* store.advanceWebAuthnCounter(proof.factorId, proof.signCount))
            ) {
              return yield* new AuthError.FactorVerificationFailed({ factorType: "webauthn" })
            }
            // A verified factor's verify is a step up; only an enrolment's first verify marks it.
            const firstVerify =
              factor.status === "unverified"
                ? yield* store.markVerified(
                    userId,
                    factor.id,
                    now,
                    proof._tag === "Registered" ? Option.some(proof.registration) : Option.none()
                  )
                : Option.none()
            const raised = yield* sessions.raise({
              sessionId: session.value.id,
              factorId: raisedBy,
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
      // The account was read after the factor's verification, in its transaction: the answer
      // lists it verified.
      return yield* IssueSession.grantOfRaised(raised, refreshToken, now)
    }),
  ({ signedIn, stored }) => ({ "user.id": signedIn.user.id, "factor.id": stored.factor.id })
)
