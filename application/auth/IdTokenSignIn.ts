import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as CustomProvider from "../../domain/auth/CustomProvider.js"
import * as IdTokenIssuer from "../../domain/auth/IdTokenIssuer.js"
import * as IdTokenNonce from "../../domain/auth/IdTokenNonce.js"
import type { UpstreamProfile } from "../../domain/UpstreamProfile.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import * as Authenticate from "./Authenticate.js"
import { AuthSettings } from "./AuthSettings.js"
import { linkToUser, signInOrUp } from "./ExternalAccount.js"
import * as IssueSession from "./IssueSession.js"
import { CustomProviderStore } from "./ports/CustomProviderStore.js"
import { ExternalProviders } from "./ports/ExternalProviders.js"
import { IdTokenVerifier } from "./ports/IdTokenVerifier.js"
import { Transactions } from "./ports/Transactions.js"
import { ensureManualLinking } from "./UnlinkIdentity.js"

/** POST /token?grant_type=id_token, as decoded from the body (`""` when absent). */
export interface IdTokenRequest {
  readonly provider: string
  readonly idToken: string
  readonly nonce: string
  readonly clientId: string
  readonly issuer: string
  readonly client: IssueSession.Client
  /**
   * `link_identity: true` (supabase-js `linkIdentity({ provider, token })`): the identity joins
   * the user the request's access token names, given as the HTTP driver read its
   * `Authorization` header (a refusal when it could not); none: a sign-in.
   */
  readonly linkIdentity: Option.Option<
    Either.Either<string, AuthError.NoBearerToken | AuthError.LinkingWithoutAccessToken>
  >
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
 * The token's `aud`: one text or a list of them, as OpenID Connect allows (absent: none);
 * undefined for anything else, which Supabase Auth's parser refuses as a bad token.
 */
const audiencesOf = (aud: unknown): ReadonlyArray<string> | undefined => {
  if (aud === undefined) return []
  if (typeof aud === "string") return [aud]
  if (Array.isArray(aud) && aud.every((entry) => typeof entry === "string")) return aud
  return undefined
}

const disabled = (message: string) => new AuthError.IdTokenProviderDisabled({ message })

/** A request or token refused as Supabase Auth refuses it there: an OAuth "invalid request". */
const invalidRequest = (message: string) => new AuthError.IdTokenRefused({ nonceMismatch: false, message })

const unsupported = (provider: string, problem: AuthError.IdTokenProviderUnsupported["problem"]) =>
  new AuthError.IdTokenProviderUnsupported({ provider, problem })

/** A custom provider's standing, as Supabase Auth tells why it cannot take ID tokens. */
const checkCustom = (name: string) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    if (!settings.customProviders.enabled) return yield* unsupported(name, "custom_providers_disabled")
    const saved = yield* Effect.flatMap(CustomProviderStore, (store) => store.find(name))
    if (Option.isNone(saved)) return yield* unsupported(name, "custom_not_found")
    if (!saved.value.enabled) return yield* disabled(`Custom provider ${JSON.stringify(name)} is disabled`)
    if (saved.value.providerType !== "oidc") return yield* unsupported(name, "not_oidc")
  })

/**
 * The provider the request means and the issuer its token must come from, as Supabase Auth
 * picks them: by `provider`, or by `issuer` alone for the providers it knows by issuer; a
 * provider whose ID tokens are not taken is "not allowed", a known one that is off "not enabled"
 * (naming its issuer), and Apple's and Azure's issuer is read from the token.
 */
const targetOf = (request: IdTokenRequest) =>
  Effect.gen(function* () {
    const providers = yield* ExternalProviders
    const verifier = yield* IdTokenVerifier
    // Each candidate's rule: the configured provider's, else the one it would have.
    const ruleOf = (name: string) =>
      Effect.map(providers.find(name), (found) => ({
        found,
        rule: Option.isSome(found)
          ? found.value.idTokenIssuer
          : IdTokenIssuer.forProvider(name, Option.none())
      }))
    const requested = request.provider.toLowerCase()
    let name = requested
    if (name === "") {
      for (const candidate of IdTokenIssuer.byIssuer) {
        const { rule } = yield* ruleOf(candidate)
        if (Option.exists(rule, (known) => IdTokenIssuer.names(known, request.issuer))) {
          name = candidate
          break
        }
      }
    }
    const { found, rule } = yield* ruleOf(name)
    // Only a custom provider that cannot take the token is read again, for the words of why.
    if (CustomProvider.isCustom(name) && Option.isNone(rule)) yield* checkCustom(name)
    if (Option.isNone(rule)) return yield* unsupported(request.provider, "not_allowed")
    const issuer = yield* Either.match(
      IdTokenIssuer.resolve(rule.value, request.issuer, verifier.issuerOf(request.idToken)),
      {
        onLeft: (refused) => Effect.fail(new AuthError.IdTokenIssuerRefused({ message: refused.message })),
        onRight: Effect.succeed
      }
    )
    if (Option.isNone(found))
      return yield* disabled(`Provider (issuer ${JSON.stringify(issuer)}) is not enabled`)
    return { name, provider: found.value, issuer }
  })

/**
 * `signInWithIdToken` (supabase-js; native apps that signed in with the provider's own SDK): an
 * ID token of an enabled provider, checked against the provider's published keys (issuer,
 * expiry, signature), then — in Supabase Auth's order and words (`api/token_oidc.go`) — its
 * subject, its audience (one of the provider's client ids) and, unless `SKIP_NONCE_CHECK`, its
 * nonce against the one passed, signs its person in as the provider's sign-in page would — the same
 * automatic linking, in one transaction — and answers the session. With `link_identity` (and
 * `SECURITY_MANUAL_LINKING_ENABLED`) the identity joins the signed-in user instead, as the
 * callback's manual linking does, and the answer is a new session of that user.
 */
export const signInWithIdToken = Telemetry.fn("IdTokenSignIn.signInWithIdToken")((request: IdTokenRequest) =>
  Effect.gen(function* () {
    if (request.idToken === "") return yield* invalidRequest("id_token required")
    if (request.provider === "" && (request.clientId === "" || request.issuer === "")) {
      return yield* invalidRequest("provider or client_id and issuer required")
    }
    // Linking: the signed-in user, checked before anything of the token, as Supabase Auth does.
    const linkingTo = yield* Option.match(request.linkIdentity, {
      onNone: () => Effect.succeed(Option.none<Authenticate.SignedIn>()),
      onSome: (accessToken) =>
        Effect.gen(function* () {
          const signedIn = yield* Authenticate.user(yield* accessToken)
          yield* ensureManualLinking
          return Option.some(signedIn)
        })
    })
    const { name, provider, issuer } = yield* targetOf(request)
    const now = new Date(yield* Clock.currentTimeMillis)
    const claims = yield* Effect.flatMap(IdTokenVerifier, (verifier) =>
      verifier.verify(request.idToken, { issuer, now })
    ).pipe(
      Effect.catchTag("IdTokenRefused", (refused) =>
        Effect.zipRight(
          Effect.logInfo("ID token refused", refused.message),
          Effect.fail(invalidRequest("Bad ID token"))
        )
      )
    )
    if (text(claims.sub) === undefined) {
      return yield* invalidRequest("Missing sub claim in id_token")
    }
    const audiences = audiencesOf(claims.aud)
    if (audiences === undefined) return yield* invalidRequest("Bad ID token")
    if (!provider.audiences.some((id) => id !== "" && audiences.includes(id))) {
      return yield* invalidRequest(`Unacceptable audience in id_token: [${audiences.join(" ")}]`)
    }
    if (!provider.skipNonceCheck) {
      const nonce = yield* IdTokenNonce.check(request.nonce, text(claims.nonce))
      if (nonce._tag === "Refused")
        return yield* new AuthError.IdTokenRefused({
          nonceMismatch: nonce.error === "invalid nonce",
          message: nonce.message
        })
    }
    const profile = profileOf(name, provider.shapeClaims(claims))
    if (profile.subject === "") return yield* invalidRequest("Bad ID token")
    // A token without an address signs in without one under MAILER_AUTOCONFIRM, as in Supabase
    // Auth; otherwise there is no address to confirm, and nothing is made (Supabase Auth makes
    // the user, then refuses it the same way).
    if (Option.isNone(linkingTo) && Option.isNone(profile.email) && !provider.emailOptional) {
      if (!(yield* AuthSettings).mailerAutoconfirm) {
        return yield* new AuthError.UnverifiedProviderEmail({ provider: name, linking: false, mailed: false })
      }
    }
    const signedIn = yield* Effect.flatMap(Transactions, (transactions) =>
      transactions.run(
        Effect.gen(function* () {
          return Option.isNone(linkingTo)
            ? yield* signInOrUp(profile, now)
            : yield* linkToUser(linkingTo.value.user.id, profile, now)
        })
      )
    ).pipe(
      Effect.catchTags({
        EmailExists: () => new AuthError.EmailInUse(),
        PhoneExists: () => new AuthError.PhoneInUse(),
        IdentityExists: () =>
          Option.isSome(linkingTo)
            ? new AuthError.IdentityAlreadyLinked({ toAnotherUser: true })
            : new AuthError.EmailInUse(),
        UserNotFound: () => new AuthError.NoSuchUser()
      })
    )
    if (signedIn.unverified) {
      return yield* new AuthError.UnverifiedProviderEmail({
        provider: name,
        linking: Option.isSome(linkingTo)
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
