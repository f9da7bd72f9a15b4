import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { ExternalLogin } from "../../domain/auth/ExternalLogin.js"
import { FlowState, FlowStateId } from "../../domain/auth/FlowState.js"
import type { Identity } from "../../domain/Identity.js"
import type * as UpstreamProfile from "../../domain/UpstreamProfile.js"
import * as UpstreamSecrets from "../../domain/UpstreamSecrets.js"
import type { User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import { linkToUser, signInOrUp } from "./ExternalAccount.js"
import * as IssueSession from "./IssueSession.js"
import * as ProviderTokenSeal from "./ProviderTokenSeal.js"
import { ExternalLoginStore } from "./ports/ExternalLoginStore.js"
import { ExternalProviders } from "./ports/ExternalProviders.js"
import { FlowStateStore } from "./ports/FlowStateStore.js"
import { Transactions } from "./ports/Transactions.js"

/** GET or POST /callback: the URL the provider sent the browser to, a POSTed form's fields in its query. */
export interface CallbackRequest {
  readonly url: URL
  readonly client: IssueSession.Client
}

/** Where the callback sends the browser, and with what. */
export type CallbackOutcome =
  | {
      readonly _tag: "Session"
      readonly target: string
      readonly grant: IssueSession.Grant
      /** The provider the sign-in named (`github`, `custom:acme`), as its identity is recorded. */
      readonly provider: string
      readonly providerTokens: Option.Option<ProviderTokenSeal.ProviderTokens>
    }
  /** The PKCE flow: `target?code=…`, which the application exchanges with its verifier. */
  | { readonly _tag: "Code"; readonly target: string; readonly code: string }
  /** Anything that went wrong after the sign-in was found: redirected with the error. */
  | {
      readonly _tag: "Failed"
      readonly target: string
      readonly pkce: boolean
      readonly error: AuthError.AuthError
    }

/** What a provider's answer to our callback was, when it is an error rather than a code. */
const providerRefusal = (query: URLSearchParams) => {
  const error = query.get("error")
  if (error === null || error === "") return Option.none()
  return Option.some(
    new AuthError.ProviderRefused({
      error,
      description: query.get("error_description") ?? "The provider refused the sign-in"
    })
  )
}

/** The session, or in the PKCE flow the code the application exchanges for it. */
const finish = (
  login: ExternalLogin,
  signedIn: { readonly user: User; readonly identity: Identity },
  profile: UpstreamProfile.UpstreamProfile,
  request: CallbackRequest,
  now: Date
) =>
  Effect.gen(function* () {
    if (Option.isSome(login.codeChallenge) && Option.isSome(login.codeChallengeMethod)) {
      const secrets = yield* Secrets
      const flows = yield* FlowStateStore
      const id = FlowStateId.make(yield* secrets.uuid)
      const code = yield* secrets.uuid
      // The provider's tokens wait for the exchange sealed under the code (ProviderTokenSeal).
      const providerTokens =
        profile.tokens === undefined
          ? Option.none()
          : Option.some(yield* ProviderTokenSeal.seal(code, profile.tokens))
      yield* flows.create(
        new FlowState({
          id,
          userId: signedIn.user.id,
          codeChallenge: login.codeChallenge.value,
          codeChallengeMethod: login.codeChallengeMethod.value,
          authenticationMethod: "oauth",
          authCodeHash: Option.none(),
          authCodeIssuedAt: Option.none(),
          providerTokens,
          createdAt: now
        })
      )
      const codeHash = yield* secrets.hash(Redacted.make(code))
      yield* flows.issueCode(id, codeHash, now)
      return { _tag: "Code", target: login.redirectTo, code } satisfies CallbackOutcome
    }
    const grant = yield* IssueSession.issue(
      signedIn.user,
      "oauth",
      request.client,
      Option.some(signedIn.identity.id)
    )
    return {
      _tag: "Session",
      target: login.redirectTo,
      grant,
      provider: login.provider,
      providerTokens: Option.fromNullable(profile.tokens)
    } satisfies CallbackOutcome
  })

/**
 * GET or POST /callback: the provider sends the browser back with a code. The sign-in parked
 * under the callback's `state` is taken (once), the code exchanged with our PKCE verifier and,
 * at OpenID providers, the ID token's nonce checked; the profile then signs its user in, links
 * or makes one (one transaction), and the browser goes to `redirect_to` with the session in the
 * fragment — or `?code=` in the PKCE flow. A state that is missing, unknown or used fails
 * without a redirect target of its own (the site's URL is used); anything later goes back to
 * the application's `redirect_to` with the error.
 */
export const callback = Telemetry.fn("ExternalCallback.callback")((request: CallbackRequest) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const query = request.url.searchParams
    const state = query.get("state") ?? ""
    const failedAt = (target: string, pkce: boolean) => (error: AuthError.AuthError) =>
      ({ _tag: "Failed", target, pkce, error }) satisfies CallbackOutcome
    if (state === "") {
      return failedAt(settings.siteUrl, false)(new AuthError.OAuthStateMissing())
    }
    const now = new Date(yield* Clock.currentTimeMillis)
    const stateHash = yield* (yield* Secrets).hash(Redacted.make(state))
    const taken = yield* Effect.flatMap(ExternalLoginStore, (logins) => logins.take(stateHash, now))
    if (Option.isNone(taken)) {
      return failedAt(settings.siteUrl, false)(new AuthError.OAuthStateNotFound())
    }
    const login = taken.value
    const failed = failedAt(login.redirectTo, Option.isSome(login.codeChallenge))
    const refusal = providerRefusal(query)
    if (Option.isSome(refusal)) return failed(refusal.value)
    const provider = yield* (yield* ExternalProviders).find(login.provider)
    if (Option.isNone(provider))
      return failed(new AuthError.UnsupportedProvider({ provider: login.provider, problem: "not_enabled" }))
    const upstream = provider.value.upstream
    if (Either.isLeft(upstream)) return failed(new AuthError.ProviderMisconfigured({ detail: upstream.left }))
    yield* Telemetry.annotate("upstream.provider", login.provider)

    const outcome = yield* Effect.gen(function* () {
      const { codeVerifier, nonce } = yield* UpstreamSecrets.fromState(state)
      const answered = yield* upstream.right
        .exchange(request.url, {
          state,
          nonce,
          codeVerifier,
          redirectUri: provider.value.redirectUri,
          handshake: Option.getOrUndefined(login.handshake)
        })
        .pipe(
          Effect.catchTag("UpstreamLoginFailed", (error) =>
            Effect.zipRight(
              Effect.logWarning("sign-in at external provider failed", error.message),
              Effect.fail(new AuthError.ProviderProfileUnavailable({ missing: "profile" }))
            )
          )
        )
      // Identities are recorded under the key the sign-in used (an OpenID provider's entry
      // names itself generically).
      const profile = { ...answered, provider: login.provider }
      if (Option.isNone(profile.email) && !provider.value.emailOptional) {
        return yield* new AuthError.ProviderProfileUnavailable({ missing: "email" })
      }
      const signedIn = yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(
          Effect.gen(function* () {
            return Option.isNone(login.linkingUserId)
              ? yield* signInOrUp(profile, now)
              : yield* linkToUser(login.linkingUserId.value, profile, now)
          })
        )
      ).pipe(
        Effect.catchTags({
          EmailExists: () => new AuthError.EmailInUse(),
          PhoneExists: () => new AuthError.PhoneInUse(),
          IdentityExists: () => new AuthError.IdentityAlreadyLinked({ toAnotherUser: true }),
          UserNotFound: () => new AuthError.NoSuchUser()
        })
      )
      yield* Telemetry.annotate("user.id", signedIn.user.id)
      if (signedIn.unverified) {
        return yield* new AuthError.UnverifiedProviderEmail({
          provider: login.provider,
          linking: Option.isSome(login.linkingUserId)
        })
      }
      return yield* finish(login, signedIn, profile, request, now)
    }).pipe(Effect.catchAll((reason) => Effect.succeed(failed(reason))))
    return outcome
  })
)
