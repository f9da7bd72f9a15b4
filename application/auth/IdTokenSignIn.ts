import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as IdTokenNonce from "../../domain/auth/IdTokenNonce.js"
import type { UpstreamProfile } from "../../domain/UpstreamProfile.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { signInOrUp } from "./ExternalCallback.js"
import * as IssueSession from "./IssueSession.js"
import { ExternalProviders } from "./ports/ExternalProviders.js"
import { IdTokenVerifier } from "./ports/IdTokenVerifier.js"
import { Transactions } from "./ports/Transactions.js"

/** POST /token?grant_type=id_token, as decoded from the body (`""` when absent). */
export interface IdTokenRequest {
  readonly provider: string
  readonly idToken: string
  readonly nonce: string
  readonly clientId: string
  readonly issuer: string
  readonly client: IssueSession.Client
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined

/** Claims of the token that describe its checking, not the person: not kept as identity data. */
const protocolClaims: ReadonlySet<string> = new Set([
  "aud",
  "exp",
  "iat",
  "nbf",
  "nonce",
  "at_hash",
  "c_hash",
  "auth_time",
  "azp",
  "jti"
])

/** The person the verified claims name, as a provider's profile. */
const profileOf = (provider: string, claims: Readonly<Record<string, unknown>>): UpstreamProfile => {
  const subject = text(claims.sub) ?? ""
  const email = text(claims.email)
  const verified = claims.email_verified === true || claims.email_verified === "true"
  const name = text(claims.name)
  const picture = text(claims.picture)
  const kept = Object.fromEntries(Object.entries(claims).filter(([key]) => !protocolClaims.has(key)))
  return {
    provider,
    subject,
    email: Option.fromNullable(email),
    emailVerified: email !== undefined && verified,
    data: {
      ...kept,
      sub: subject,
      provider_id: subject,
      email_verified: email !== undefined && verified,
      phone_verified: false,
      ...(name === undefined ? {} : { full_name: name }),
      ...(picture === undefined ? {} : { avatar_url: picture })
    }
  }
}

/**
 * `signInWithIdToken` (supabase-js; native apps that signed in with the provider's own SDK): an
 * ID token of an enabled provider, checked against the provider's published keys (issuer,
 * audience = its client id, expiry, signature) and, unless `SKIP_NONCE_CHECK`, its nonce
 * against the one passed, signs its person in as the provider's sign-in page would — the same
 * automatic linking, in one transaction — and answers the session.
 */
export const signInWithIdToken = Telemetry.fn("IdTokenSignIn.signInWithIdToken")((request: IdTokenRequest) =>
  Effect.gen(function* () {
    if (request.idToken === "")
      return yield* AuthError.oauth("invalid request", "id_token required", "validation_failed")
    if (request.provider === "" && (request.clientId === "" || request.issuer === "")) {
      return yield* AuthError.oauth(
        "invalid request",
        "provider or client_id and issuer required",
        "validation_failed"
      )
    }
    const name = request.provider.toLowerCase()
    const provider = yield* (yield* ExternalProviders).find(name)
    const issuer = Option.flatMap(provider, (found) => found.idTokenIssuer)
    if (Option.isNone(provider) || Option.isNone(issuer)) {
      return yield* new AuthError.AuthError({
        code: "provider_disabled",
        message: `Provider (issuer ${JSON.stringify(request.provider === "" ? request.issuer : request.provider)}) is not enabled`,
        status: 400
      })
    }
    const now = new Date(yield* Clock.currentTimeMillis)
    const claims = yield* Effect.flatMap(IdTokenVerifier, (verifier) =>
      verifier.verify(request.idToken, { issuer: issuer.value, audiences: provider.value.audiences, now })
    ).pipe(
      Effect.catchTag("IdTokenRefused", (refused) =>
        Effect.zipRight(
          Effect.logInfo("ID token refused", refused.message),
          Effect.fail(AuthError.oauth("invalid request", "Bad ID token", "validation_failed"))
        )
      )
    )
    if (!provider.value.skipNonceCheck) {
      const nonce = yield* IdTokenNonce.check(request.nonce, text(claims.nonce))
      if (nonce._tag === "Refused")
        return yield* AuthError.oauth("invalid request", nonce.message, "validation_failed")
    }
    const profile = profileOf(name, provider.value.shapeClaims(claims))
    if (profile.subject === "")
      return yield* AuthError.oauth("invalid request", "Bad ID token", "validation_failed")
    if (Option.isNone(profile.email) && !provider.value.emailOptional) {
      return yield* AuthError.oauth(
        "invalid request",
        "Missing email address in ID token",
        "validation_failed"
      )
    }
    const signedIn = yield* Effect.flatMap(Transactions, (transactions) =>
      transactions.run(signInOrUp(profile, now))
    ).pipe(
      Effect.catchTags({
        EmailExists: () => AuthError.emailExists(),
        PhoneExists: () => AuthError.phoneExists(),
        IdentityExists: () => AuthError.emailExists(),
        UserNotFound: () => AuthError.userNotFound()
      })
    )
    if (signedIn.unverified) {
      return yield* new AuthError.AuthError({
        code: "provider_email_needs_verification",
        message: `Unverified email with ${name}. A confirmation email has been sent to your ${name} email`,
        status: 422
      })
    }
    yield* Telemetry.annotate("user.id", signedIn.user.id)
    return yield* IssueSession.issue(
      signedIn.user,
      "oauth",
      request.client,
      Option.some(signedIn.identity.id)
    )
  })
)
