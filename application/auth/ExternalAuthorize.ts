import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as CustomProvider from "../../domain/auth/CustomProvider.js"
import * as ExternalLogin from "../../domain/auth/ExternalLogin.js"
import type { UserId } from "../../domain/Ids.js"
import * as UpstreamSecrets from "../../domain/UpstreamSecrets.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings, providerKeys } from "./AuthSettings.js"
import * as ClientInput from "./ClientInput.js"
import { CustomProviderStore } from "./ports/CustomProviderStore.js"
import { ExternalLoginStore } from "./ports/ExternalLoginStore.js"
import { ExternalProviders } from "./ports/ExternalProviders.js"

/** GET /authorize (supabase-js `signInWithOAuth`), as decoded from the query (`""` when absent). */
export interface AuthorizeRequest {
  readonly provider: string
  /** `scopes`: space-separated scopes beyond the provider's own. */
  readonly scopes: string
  readonly redirectTo: string
  readonly codeChallenge: string
  readonly codeChallengeMethod: string
  /** The rest of the query, for the parameters the provider takes (WorkOS `connection`, …). */
  readonly query: ReadonlyMap<string, string>
  /** Manual linking: the signed-in user the identity is to join. */
  readonly linkingUserId?: UserId
}

/** Why Supabase Auth does not start a sign-in at a provider: one it does not know, or one that is off. */
const unsupported = (provider: string) =>
  Effect.gen(function* () {
    if (!CustomProvider.isCustom(provider)) {
      return yield* new AuthError.UnsupportedProvider({
        provider,
        problem: providerKeys.some((key) => key === provider) ? "not_enabled" : "not_found"
      })
    }
    // A custom provider is off or unknown: which, as Supabase Auth tells them apart.
    if (!(yield* AuthSettings).customProviders.enabled)
      return yield* new AuthError.UnsupportedProvider({ provider, problem: "custom_providers_disabled" })
    const saved = yield* Effect.flatMap(CustomProviderStore, (store) => store.find(provider))
    return yield* new AuthError.UnsupportedProvider({
      provider,
      problem: Option.isSome(saved) && !saved.value.enabled ? "custom_disabled" : "custom_not_found"
    })
  })

/**
 * Starts a sign-in at an external provider: the request's checks in Supabase Auth's order and
 * words, then the sign-in parked under a fresh `state` (only its digest is stored), and the
 * provider's authorization URL with that state, our PKCE challenge and, at OpenID providers,
 * our nonce — both derived from the state, so neither is at rest. The application's own PKCE
 * challenge, if it sent one, waits with the sign-in for the callback.
 */
export const authorize = Telemetry.fn("ExternalAuthorize.authorize")((request: AuthorizeRequest) =>
  Effect.gen(function* () {
    const name = request.provider.toLowerCase()
    const provider = yield* (yield* ExternalProviders).find(name)
    if (Option.isNone(provider)) return yield* unsupported(name)
    const upstream = provider.value.upstream
    if (Either.isLeft(upstream)) return yield* new AuthError.ProviderMisconfigured({ detail: upstream.left })
    const settings = yield* AuthSettings
    const challenge = yield* ClientInput.pkceChallenge(request.codeChallenge, request.codeChallengeMethod)
    const now = new Date(yield* Clock.currentTimeMillis)
    const secrets = yield* Secrets
    const state = yield* secrets.token("state")
    const stateHash = yield* secrets.hash(state)
    const { codeVerifier, nonce } = yield* UpstreamSecrets.fromState(Redacted.value(state))
    const parameters: Record<string, string> = {}
    for (const [ours, theirs] of Object.entries(provider.value.passThrough)) {
      const value = request.query.get(ours)
      if (value !== undefined && value !== "") parameters[theirs] = value
    }
    yield* Telemetry.annotate("upstream.provider", name)
    const location = yield* upstream.right
      .authorizationUrl({
        state: Redacted.value(state),
        nonce,
        codeVerifier,
        redirectUri: provider.value.redirectUri,
        extraScopes: request.scopes.split(/[\s,]+/).filter((scope) => scope !== ""),
        parameters
      })
      .pipe(
        Effect.catchTag("UpstreamLoginFailed", (error) =>
          Effect.zipRight(
            Effect.logWarning("external provider unavailable", error.message),
            new AuthError.ProviderUnreachable({ provider: name })
          )
        )
      )
    // The sign-in is parked once the provider's URL is known: an OAuth 1.0a provider hands
    // over, with it, what must wait for the callback.
    const { url, handshake } = provider.value.takeHandshake(location)
    yield* Effect.flatMap(ExternalLoginStore, (logins) =>
      logins.put(
        new ExternalLogin.ExternalLogin({
          stateHash,
          provider: name,
          redirectTo: settings.redirectTarget(request.redirectTo),
          codeChallenge: Option.map(challenge, (given) => given.codeChallenge),
          codeChallengeMethod: Option.map(challenge, (given) => given.method),
          linkingUserId: Option.fromNullable(request.linkingUserId),
          handshake,
          createdAt: now,
          expiresAt: ExternalLogin.expiryFor(now, settings.flowStateLifetime)
        })
      )
    )
    return url
  })
)
