import { Clock, Effect, Either, Option, Redacted } from "effect"
import * as AuthorizationCode from "../../domain/AuthorizationCode.js"
import { GrantId, IdentityId, UserId } from "../../domain/Ids.js"
import * as UpstreamSecrets from "../../domain/UpstreamSecrets.js"
import * as User from "../../domain/User.js"
import { AuthorizationCodeStore } from "../ports/AuthorizationCodeStore.js"
import { PendingLoginStore } from "../ports/PendingLoginStore.js"
import { SecretHasher } from "../ports/SecretHasher.js"
import { TokenMint } from "../ports/TokenMint.js"
import { UpstreamIdentityProvider } from "../ports/UpstreamIdentityProvider.js"
import { UserRepository } from "../ports/UserRepository.js"
import type { AuthorizeOutcome } from "./Authorize.js"
import * as ClientRedirect from "./ClientRedirect.js"
import { OAuthError, type OAuthErrorCode } from "./OAuthError.js"
import { OAuthSettings } from "./OAuthSettings.js"

/**
 * GET /callback — the upstream sends the user back here. We finish the upstream login, map
 * the upstream account to our user (created on first login) and send the user back to the
 * client with our own single-use code.
 */
export const callback = (callbackUrl: URL) =>
  Effect.gen(function* () {
    const settings = yield* OAuthSettings
    const state = callbackUrl.searchParams.get("state")
    if (state === null || state === "") {
      return {
        _tag: "ShowError",
        error: new OAuthError({
          code: "invalid_request",
          description: "the identity provider returned no state"
        })
      } satisfies AuthorizeOutcome
    }
    const now = new Date(yield* Clock.currentTimeMillis)
    const stateHash = yield* Effect.flatMap(SecretHasher, (hasher) => hasher.hash(Redacted.make(state)))
    const taken = yield* Effect.flatMap(PendingLoginStore, (pending) => pending.take(stateHash, now))
    if (Option.isNone(taken)) {
      return {
        _tag: "ShowError",
        error: new OAuthError({
          code: "invalid_request",
          description: "this login has expired or was already completed; start again from your application"
        })
      } satisfies AuthorizeOutcome
    }
    const pending = taken.value
    yield* Effect.annotateCurrentSpan("client.id", pending.clientId)
    const toClient = (params: Record<string, string>): AuthorizeOutcome => ({
      _tag: "RedirectToClient",
      location: ClientRedirect.build(pending.redirectUri, {
        ...params,
        state: Option.getOrUndefined(pending.clientState),
        iss: settings.issuer
      })
    })
    const fail = (code: OAuthErrorCode, description: string) =>
      toClient({ error: code, error_description: description })

    const upstreamError = callbackUrl.searchParams.get("error")
    if (upstreamError !== null) {
      return upstreamError === "access_denied"
        ? fail("access_denied", "the user declined at the identity provider")
        : fail("server_error", "the identity provider reported an error")
    }
    const secrets = yield* UpstreamSecrets.fromState(state)
    const upstream = yield* UpstreamIdentityProvider
    const profile = yield* Effect.either(
      upstream.exchange(callbackUrl, { state, ...secrets, redirectUri: settings.callbackUrl })
    )
    if (Either.isLeft(profile)) {
      yield* Effect.logWarning("upstream login failed", profile.left.message)
      return fail("access_denied", "login at the identity provider failed")
    }

    const mint = yield* TokenMint
    const ids = {
      userId: UserId.make(yield* mint.uuid),
      identityId: IdentityId.make(yield* mint.uuid)
    }
    const user = yield* Effect.flatMap(UserRepository, (users) =>
      users.upsertFromUpstream(profile.right, ids, now)
    )
    yield* Effect.annotateCurrentSpan("user.id", user.id)
    if (Either.isLeft(User.canSignIn(user, now))) return fail("access_denied", "this account is banned")

    const code = yield* mint.token("code")
    const codeHash = yield* Effect.flatMap(SecretHasher, (hasher) => hasher.hash(code))
    const grantId = GrantId.make(yield* mint.uuid)
    yield* Effect.flatMap(AuthorizationCodeStore, (codes) =>
      codes.issue(
        new AuthorizationCode.AuthorizationCode({
          hash: codeHash,
          grantId,
          clientId: pending.clientId,
          userId: user.id,
          redirectUri: pending.redirectUri,
          codeChallenge: pending.codeChallenge,
          scope: pending.scope,
          resource: pending.resource,
          issuedAt: now,
          expiresAt: AuthorizationCode.expiryFor(now),
          consumedAt: Option.none()
        })
      )
    )
    return toClient({ code: Redacted.value(code) })
  }).pipe(Effect.withSpan("Callback.callback"))
