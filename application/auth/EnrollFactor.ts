import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Factor from "../../domain/auth/Factor.js"
import * as Totp from "../../domain/auth/Totp.js"
import * as TotpUri from "../../domain/auth/TotpUri.js"
import * as User from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as Reaping from "../Reaping.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { AuthSettings } from "./AuthSettings.js"
import { requireNotAnonymous, sessionAal } from "./FactorInput.js"
import { MfaSettings } from "./MfaSettings.js"
import { FactorStore } from "./ports/FactorStore.js"
import { SecretsAtRest } from "./ports/SecretsAtRest.js"
import { TotpCodes } from "./ports/TotpCodes.js"
import { Transactions } from "./ports/Transactions.js"

/** `POST /factors` as supabase-js `mfa.enroll` sends it; absent fields are `""`. */
export interface EnrollRequest {
  readonly factorType: string
  readonly friendlyName: string
  /** TOTP: the issuer the authenticator app shows; `""`: `SITE_URL`'s host. */
  readonly issuer: string
  /** Phone: the number, E.164 as Supabase Auth reads it. */
  readonly phone: string
}

/** What the enrolment gives the client to set up the factor. */
export type Enrolled =
  | {
      readonly _tag: "Totp"
      readonly factor: Factor.Factor
      readonly secret: Redacted.Redacted<string>
      /** The `otpauth://` URI the client shows as a QR code. */
      readonly uri: Redacted.Redacted<string>
    }
  | { readonly _tag: "Phone"; readonly factor: Factor.Factor; readonly phone: string }
  | { readonly _tag: "WebAuthn"; readonly factor: Factor.Factor }

const isEnrolledType = Schema.is(Factor.EnrolledType)

/** The phone of a phone enrolment: required, then E.164 (`validatePhone`). */
const phoneOf = (request: EnrollRequest) =>
  Effect.gen(function* () {
    if (request.phone === "") return yield* new AuthError.FactorPhoneMissing()
    return yield* Either.match(User.parsePhone(request.phone), {
      onLeft: () => Effect.fail(new AuthError.MalformedPhone()),
      onRight: (phone) => Effect.succeed(phone)
    })
  })

/**
 * A TOTP factor's secret, 20 random bytes in base32, and its `otpauth://` URI, checked before
 * anything is stored: a URI no QR code can hold would make a factor nobody could scan.
 */
const newTotp = (requestedIssuer: string, user: User.User) =>
  Effect.gen(function* () {
    const secret = (yield* TotpCodes).secretOf(yield* (yield* Secrets).bytes(Totp.parameters.secretBytes))
    const issuer = Totp.issuerOf(requestedIssuer, new URL((yield* AuthSettings).siteUrl))
    const uri = TotpUri.uri(
      issuer,
      Option.getOrElse(user.email, () => ""),
      secret
    )
    if (!TotpUri.fitsQrCode(uri)) return yield* new AuthError.TotpIssuerTooLong()
    return { secret, uri }
  })

/**
 * POST /factors (supabase-js `mfa.enroll`): a new unverified factor of the signed-in user, who is
 * not anonymous. Supabase Auth's `EnrollFactor`, its checks in its order (docs/decisions/0015,
 * "Enrol"): the type, its `…_ENROLL_ENABLED` switch, a phone's number; then the abandoned
 * unverified factors of every user are deleted (`DeleteExpiredFactors`), and `Factor.enrol`
 * decides on what is left — a verified factor with the number, the friendly name (`""`
 * included), `MFA_MAX_ENROLLED_FACTORS`/`MFA_MAX_VERIFIED_FACTORS`, aal2 once a factor is
 * verified. Unverified phone factors of the same number are replaced, in the transaction that
 * stores the new one. A TOTP factor's secret is 20 random bytes in base32 with its
 * `otpauth://` URI; a WebAuthn factor's credential comes at its first challenge and verify.
 */
export const enrollFactor = Telemetry.fn("EnrollFactor.enrollFactor")(
  (signedIn: SignedIn, request: EnrollRequest) =>
    Effect.gen(function* () {
      yield* requireNotAnonymous(signedIn)
      const factorType = request.factorType
      if (!isEnrolledType(factorType)) {
        return yield* new AuthError.FactorTypeUnsupported()
      }
      const mfa = yield* MfaSettings
      if (!mfa.switches[factorType].enroll) return yield* new AuthError.FactorEnrollDisabled({ factorType })
      const phone = factorType === "phone" ? Option.some(yield* phoneOf(request)) : Option.none()
      const user = signedIn.user
      const store = yield* FactorStore
      const now = new Date(yield* Clock.currentTimeMillis)
      // A bounded share of the work, every user's, as Supabase Auth's enrolment does it; the
      // reaper takes the rest.
      yield* store.removeAbandoned(
        new Date(now.getTime() - Duration.toMillis(Factor.unverifiedLifetime(mfa.unverifiedLifetime))),
        Reaping.batchSize
      )
      const secrets = yield* Secrets
      const factor = new Factor.Factor({
        id: Factor.FactorId.make(yield* secrets.uuid),
        userId: user.id,
        friendlyName: request.friendlyName,
        factorType,
        status: "unverified",
        phone,
        lastChallengedAt: Option.none(),
        createdAt: now,
        updatedAt: now
      })
      const totp = factorType === "totp" ? Option.some(yield* newTotp(request.issuer, user)) : Option.none()
      // Sealed under the operator's key when secrets are encrypted at rest, bound to this factor.
      const atRest = yield* SecretsAtRest
      const secret = Option.isSome(totp)
        ? Option.some(yield* atRest.seal(factor.id, totp.value.secret))
        : Option.none<string>()
      yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(
          Effect.gen(function* () {
            const existing = yield* store.list(user.id)
            const decision = Factor.enrol(
              existing,
              { factorType, friendlyName: request.friendlyName, phone },
              mfa.limits,
              sessionAal(signedIn)
            )
            switch (decision._tag) {
              case "VerifiedPhoneExists":
                return yield* new AuthError.VerifiedPhoneFactorExists()
              case "NameConflict":
                return yield* new AuthError.FactorNameConflict({ friendlyName: decision.friendlyName })
              case "TooManyFactors":
                return yield* new AuthError.TooManyFactors()
              case "InsufficientAal":
                return yield* new AuthError.Aal2Required({ action: "enroll" })
              case "Allowed":
                // Counted again with the insert: of concurrent enrolments, those past a limit fail.
                yield* store.enrol(factor, secret, mfa.limits, decision.replaces)
            }
          })
        )
      ).pipe(
        Effect.catchTags({
          FactorNameTaken: (taken) => new AuthError.FactorNameConflict({ friendlyName: taken.friendlyName }),
          // A verified factor of this number stored since the list was read.
          FactorPhoneTaken: () => new AuthError.VerifiedPhoneFactorExists(),
          FactorLimitReached: () => new AuthError.TooManyFactors(),
          RecoveryCodesExist: () =>
            Effect.dieMessage("a factor enrolled through POST /factors is no recovery-code set")
        })
      )
      if (Option.isSome(totp)) {
        return {
          _tag: "Totp",
          factor,
          secret: Redacted.make(totp.value.secret),
          uri: Redacted.make(totp.value.uri)
        } satisfies Enrolled
      }
      if (Option.isSome(phone)) return { _tag: "Phone", factor, phone: request.phone } satisfies Enrolled
      return { _tag: "WebAuthn", factor } satisfies Enrolled
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
