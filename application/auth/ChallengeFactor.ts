import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as FactorChallenge from "../../domain/auth/FactorChallenge.js"
import * as Time from "../../domain/Time.js"
import { Phone } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { AuthSettings } from "./AuthSettings.js"
import type { FactorOwner } from "./FactorInput.js"
import { MfaSettings } from "./MfaSettings.js"
import { FactorStore, type StoredFactor } from "./ports/FactorStore.js"
import { SmsSender } from "./ports/SmsSender.js"
import { Transactions } from "./ports/Transactions.js"
import {
  type CreationOptionsJSON,
  type RequestOptionsJSON,
  WebAuthnCeremonies
} from "./ports/WebAuthnCeremonies.js"
import * as RelyingParty from "./RelyingParty.js"
import * as SendSms from "./SendSms.js"
import * as WebAuthnFactors from "./WebAuthnFactors.js"

/** `POST /factors/{factor_id}/challenge` as the handler reads it. */
export interface ChallengeRequest {
  /** The body's `channel` (phone factors), `""` when absent. */
  readonly channel: string
  /** The client address the challenge is bound to (a verify must come from it). */
  readonly ipAddress: string
}

/** The ceremony a WebAuthn factor's challenge starts: its options for the browser. */
export type CeremonyOptions =
  | { readonly type: "create"; readonly options: CreationOptionsJSON }
  | { readonly type: "request"; readonly options: RequestOptionsJSON }

/** Supabase Auth's challenge answer: `expires_at` in unix seconds. */
export interface Challenged {
  readonly id: FactorChallenge.ChallengeId
  readonly type: "totp" | "phone" | "webauthn"
  readonly expiresAt: number
  /** A WebAuthn factor's ceremony; none for the others. */
  readonly webAuthn: Option.Option<CeremonyOptions>
}

/** Recovery codes have verbs of their own (`/factors/recovery-codes`); their factor answers here. */
const notChallengeable = () => new AuthError.FactorTypeUnsupported()

/**
 * A WebAuthn factor's ceremony, as Supabase Auth's `challengeWebAuthnFactor` starts it: while the
 * factor is unverified a registration (`create`, excluding the credentials of the user's
 * verified WebAuthn factors), once verified an assertion (`request`) with any of them. The
 * browser may take as long as the challenge lives; user verification is `preferred`, as
 * go-webauthn's default. Only the challenge's digest is kept, on the challenge row.
 */
const webAuthnCeremony = (signedIn: SignedIn, stored: StoredFactor) =>
  Effect.gen(function* () {
    const mfa = yield* MfaSettings
    const party = yield* RelyingParty.relyingParty
    const ceremonies = yield* WebAuthnCeremonies
    const known = (yield* WebAuthnFactors.registeredCredentials(signedIn.user.id)).map(({ credential }) => ({
      id: credential.credentialId,
      transports: credential.transports
    }))
    const timeout = FactorChallenge.lifetime(mfa.challengeLifetime)
    if (stored.factor.status === "unverified") {
      const started = yield* ceremonies.registrationOptions({
        relyingParty: { id: party.id, name: party.displayName },
        user: RelyingParty.credentialUserOf(signedIn.user),
        excludeCredentials: known,
        residentKey: "discouraged",
        userVerification: "preferred",
        timeout
      })
      const options: CeremonyOptions = { type: "create", options: started.options }
      return { ceremony: started.ceremony, options }
    }
    const started = yield* ceremonies.authenticationOptions({
      relyingPartyId: party.id,
      allowCredentials: known,
      userVerification: "preferred",
      timeout
    })
    const options: CeremonyOptions = { type: "request", options: started.options }
    return { ceremony: started.ceremony, options }
  })

/**
 * A phone factor's code: made (or a test number's fixed one, `SMS_TEST_OTP`, which no text
 * carries), its digest stored with the challenge and the text sent in one transaction, so that a
 * refused text leaves no challenge. At most one challenge per `MFA_PHONE_MAX_FREQUENCY`, decided
 * by the store atomically.
 */
const phoneChallenge = (stored: StoredFactor, challenge: FactorChallenge.FactorChallenge, channel: string) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const mfa = yield* MfaSettings
    const secrets = yield* Secrets
    const sender = yield* SmsSender
    const store = yield* FactorStore
    const number = stored.factor.phone
    if (Option.isNone(number)) return yield* new AuthError.FactorNotFound()
    const to = Phone.make(number.value)
    const chosen = yield* SendSms.channel(channel)
    const now = challenge.createdAt
    const testCode = settings.sms.testCode(to, now)
    if (Option.isNone(testCode) && sender.provider === "") return yield* new AuthError.SmsUnavailable()
    const code = Option.isSome(testCode)
      ? Redacted.make(testCode.value)
      : yield* secrets.code(mfa.phone.codeLength)
    const spacing = FactorChallenge.phoneMaxFrequency(mfa.phone.spacing)
    const withCode = new FactorChallenge.FactorChallenge(
      { ...challenge, otpCodeHash: Option.some(yield* secrets.hash(code)) },
      true
    )
    yield* Effect.flatMap(Transactions, (transactions) =>
      transactions.run(
        Effect.gen(function* () {
          const made = yield* store.createChallenge(withCode, Option.some(Time.minus(now, spacing))).pipe(
            Effect.catchTag("ChallengedTooSoon", (error) =>
              Effect.fail(
                new AuthError.SentTooRecently({
                  channel: "sms",
                  secondsLeft: Math.trunc(
                    (Time.plus(error.lastChallengedAt, spacing).getTime() - now.getTime()) / 1000
                  )
                })
              )
            )
          )
          if (!made) return yield* new AuthError.FactorNotFound()
          if (Option.isSome(testCode)) return
          yield* sender
            .send({ to, body: mfa.phone.text(Redacted.value(code)), channel: chosen, code })
            .pipe(
              Effect.catchTag(
                "SmsSendFailed",
                (error) => new AuthError.SmsNotDelivered({ otpType: "sms", detail: error.message })
              )
            )
        })
      )
    )
  })

/**
 * POST /factors/{factor_id}/challenge (supabase-js `mfa.challenge`): a challenge of one of the
 * user's TOTP, phone or WebAuthn factors, bound to the caller's address, usable until
 * `MFA_CHALLENGE_EXPIRY_DURATION` by one verify; for a phone factor a code is texted, for a
 * WebAuthn factor a ceremony's options are answered. Every challenge stamps the factor's
 * `last_challenged_at`.
 */
export const challengeFactor = Telemetry.fn("ChallengeFactor.challengeFactor")(
  ({ signedIn, stored }: FactorOwner, request: ChallengeRequest) =>
    Effect.gen(function* () {
      const factor = stored.factor
      const mfa = yield* MfaSettings
      if (!mfa.switches[factor.factorType].verify) {
        return yield* new AuthError.FactorVerifyDisabled({ factorType: factor.factorType, at: "challenge" })
      }
      const type = factor.factorType
      if (type === "recovery_code") return yield* notChallengeable()
      const secrets = yield* Secrets
      const now = new Date(yield* Clock.currentTimeMillis)
      const challenge = new FactorChallenge.FactorChallenge({
        id: FactorChallenge.ChallengeId.make(yield* secrets.uuid),
        factorId: factor.id,
        ipAddress: request.ipAddress,
        otpCodeHash: Option.none(),
        webAuthn: Option.none(),
        createdAt: now,
        verifiedAt: Option.none()
      })
      const unpaced = (made: FactorChallenge.FactorChallenge) =>
        Effect.flatMap(FactorStore, (store) => store.createChallenge(made, Option.none())).pipe(
          // Without `lastBefore` the store paces nothing.
          Effect.catchTag("ChallengedTooSoon", () => Effect.dieMessage("an unpaced challenge was paced")),
          Effect.flatMap((made) => (made ? Effect.void : Effect.fail(new AuthError.FactorNotFound())))
        )
      let webAuthn = Option.none<CeremonyOptions>()
      if (type === "phone") {
        yield* phoneChallenge(stored, challenge, request.channel)
      } else if (type === "webauthn") {
        const started = yield* webAuthnCeremony(signedIn, stored)
        yield* unpaced(
          new FactorChallenge.FactorChallenge({ ...challenge, webAuthn: Option.some(started.ceremony) }, true)
        )
        webAuthn = Option.some(started.options)
      } else {
        yield* unpaced(challenge)
      }
      return {
        id: challenge.id,
        type,
        expiresAt: FactorChallenge.expiresAtSeconds(challenge, mfa.challengeLifetime),
        webAuthn
      } satisfies Challenged
    }),
  ({ signedIn, stored }) => ({ "user.id": signedIn.user.id, "factor.id": stored.factor.id })
)
