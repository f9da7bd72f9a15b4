import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Passkey from "../../domain/auth/Passkey.js"
import { userIdOfHandle } from "../../domain/auth/WebAuthnCeremony.js"
import { WebAuthnCredential } from "../../domain/auth/WebAuthnCredential.js"
import * as Ban from "../../domain/Ban.js"
import type { User } from "../../domain/User.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import * as IssueSession from "./IssueSession.js"
import { readVerifyRequest, requirePasskeys, spendChallenge, type VerifyRequest } from "./PasskeyInput.js"
import { PasskeyStore } from "./ports/PasskeyStore.js"
import { Transactions } from "./ports/Transactions.js"
import { UserRepository } from "./ports/UserRepository.js"
import { WebAuthnCeremonies } from "./ports/WebAuthnCeremonies.js"
import { expected } from "./RelyingParty.js"

export interface PasskeySignInRequest extends VerifyRequest {
  readonly client: IssueSession.Client
}

const refused = () => new AuthError.WebAuthnVerificationFailed({ failure: "refused" })

/** The credential a stored passkey verifies assertions with. */
const credentialOf = (passkey: Passkey.Passkey) =>
  new WebAuthnCredential({
    credentialId: passkey.credentialId,
    publicKey: passkey.publicKey,
    attestationType: passkey.attestationType,
    signCount: passkey.signCount,
    transports: passkey.transports,
    backupEligible: passkey.backupEligible,
    backedUp: passkey.backedUp
  })

/** Supabase Auth's checks after the ceremony: contact confirmed when there is one, no ban. */
const mayUse = (user: User, now: Date) => {
  if (Option.isSome(user.email) && Option.isNone(user.emailConfirmedAt)) {
    return Effect.fail(new AuthError.PasskeySignInRefused({ why: "email_not_confirmed" }))
  }
  if (Option.isSome(user.phone) && Option.isNone(user.phoneConfirmedAt)) {
    return Effect.fail(new AuthError.PasskeySignInRefused({ why: "phone_not_confirmed" }))
  }
  if (Ban.isBanned(user.bannedUntil, now))
    return Effect.fail(new AuthError.PasskeySignInRefused({ why: "banned" }))
  return Effect.void
}

/**
 * POST /passkeys/authentication/verify (supabase-js `signInWithPasskey`'s last step, Supabase
 * Auth's `PasskeyAuthenticationVerify`): a new session for the user whose passkey signed the
 * sign-in challenge. The challenge is spent first, right or wrong. The user is the one the
 * assertion's user handle names, and the credential must be one of theirs (the handle binds the
 * credential to its user). The signature counter must move forward, decided once in the
 * transaction that issues the session (`PasskeyStore.recordUse`), so a replayed assertion or two
 * sign-ins with one are refused (Supabase Auth only notes a clone). A verified passkey of a user
 * who has not confirmed their address or number, or is banned, is 403. The session is aal1 with
 * AMR `passkey`.
 */
export const passkeySignIn = Telemetry.fn("PasskeySignIn.passkeySignIn")((request: PasskeySignInRequest) =>
  Effect.gen(function* () {
    yield* requirePasskeys
    const read = yield* readVerifyRequest(request)
    const challenge = yield* spendChallenge(read.challengeId, "authentication", Option.none())
    const ceremonies = yield* WebAuthnCeremonies
    const assertion = yield* ceremonies
      .readAssertion(read.credential)
      .pipe(
        Effect.catchTag(
          "MalformedCredential",
          () => new AuthError.WebAuthnVerificationFailed({ failure: "unparsable" })
        )
      )
    const userId = Option.flatMap(assertion.userHandle, userIdOfHandle)
    if (Option.isNone(userId)) return yield* refused()
    const user = yield* Effect.flatMap(UserRepository, (users) => users.findById(userId.value))
    if (Option.isNone(user)) return yield* refused()
    const store = yield* PasskeyStore
    const passkey = yield* store.findByCredential(userId.value, assertion.credentialId)
    if (Option.isNone(passkey)) return yield* refused()
    const verified = yield* Effect.flatMap(expected, (where) =>
      ceremonies.verifyAuthentication(assertion, challenge.ceremony, credentialOf(passkey.value), where)
    ).pipe(Effect.catchTag("CeremonyFailed", refused))
    const now = new Date(yield* Clock.currentTimeMillis)
    yield* mayUse(user.value, now)
    yield* Telemetry.annotate("user.id", user.value.id)
    return yield* Effect.flatMap(Transactions, (transactions) =>
      transactions.run(
        Effect.gen(function* () {
          const recorded = yield* store.recordUse(passkey.value.id, {
            signCount: verified.signCount,
            backedUp: verified.backedUp,
            at: now
          })
          if (Option.isNone(recorded)) return yield* refused()
          return yield* IssueSession.issue(user.value, "passkey", request.client)
        })
      )
    )
  })
)
