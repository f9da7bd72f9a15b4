import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Passkey from "../../domain/auth/Passkey.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { requireNotAnonymous } from "./FactorInput.js"
import {
  readVerifyRequest,
  requireManagementAal,
  requirePasskeys,
  spendChallenge,
  type VerifyRequest
} from "./PasskeyInput.js"
import { PasskeyStore } from "./ports/PasskeyStore.js"
import { Transactions } from "./ports/Transactions.js"
import { WebAuthnCeremonies } from "./ports/WebAuthnCeremonies.js"
import { expected } from "./RelyingParty.js"

/** The AAGUID of authenticators that do not tell their model: nothing worth keeping. */
const hiddenModel = "00000000-0000-0000-0000-000000000000"

/**
 * POST /passkeys/registration/verify (supabase-js `passkey.verifyRegistration`, Supabase Auth's
 * `PasskeyRegistrationVerify`): the browser's answer to the user's registration challenge,
 * verified, stored as a passkey named `Passkey` (docs/compatibility.md: no AAGUID list). The
 * challenge is spent whatever follows; the per-user limit is checked again with the insert, and
 * a credential id stored already (the user's or anyone's) is `webauthn_credential_exists`.
 */
export const finishPasskeyRegistration = Telemetry.fn("FinishPasskeyRegistration.finishPasskeyRegistration")(
  (signedIn: SignedIn, request: VerifyRequest) =>
    Effect.gen(function* () {
      const settings = yield* requirePasskeys
      yield* requireNotAnonymous(signedIn)
      yield* requireManagementAal(signedIn)
      const read = yield* readVerifyRequest(request)
      const user = signedIn.user
      const challenge = yield* spendChallenge(read.challengeId, "registration", Option.some(user.id))
      const registered = yield* Effect.flatMap(WebAuthnCeremonies, (ceremonies) =>
        Effect.flatMap(expected, (where) =>
          ceremonies.verifyRegistration(read.credential, challenge.ceremony, where)
        )
      ).pipe(
        Effect.catchTags({
          MalformedCredential: () => new AuthError.WebAuthnVerificationFailed({ failure: "unparsable" }),
          CeremonyFailed: () => new AuthError.WebAuthnVerificationFailed({ failure: "refused" })
        })
      )
      const now = new Date(yield* Clock.currentTimeMillis)
      const credential = registered.credential
      const passkey = new Passkey.Passkey({
        id: Passkey.PasskeyId.make(yield* Effect.flatMap(Secrets, (secrets) => secrets.uuid)),
        userId: user.id,
        credentialId: credential.credentialId,
        publicKey: credential.publicKey,
        attestationType: credential.attestationType,
        aaguid: registered.aaguid === hiddenModel ? Option.none() : Option.some(registered.aaguid),
        signCount: credential.signCount,
        transports: credential.transports,
        backupEligible: credential.backupEligible,
        backedUp: credential.backedUp,
        friendlyName: Passkey.defaultFriendlyName,
        createdAt: now,
        updatedAt: now,
        lastUsedAt: Option.none()
      })
      yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(
          Effect.flatMap(PasskeyStore, (store) => store.register(passkey, settings.maxPerUser))
        )
      ).pipe(
        Effect.catchTags({
          CredentialTaken: () => new AuthError.WebAuthnCredentialExists(),
          TooManyPasskeys: () => new AuthError.TooManyPasskeys()
        })
      )
      yield* Telemetry.annotate("passkey.id", passkey.id)
      return passkey
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
