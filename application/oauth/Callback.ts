import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { IdentityId, UserId } from "../../domain/Ids.js"
import { BrowserSession, expiryFor as sessionExpiry } from "../../domain/oauth/BrowserSession.js"
import * as Client from "../../domain/oauth/Client.js"
import * as PendingConsent from "../../domain/oauth/PendingConsent.js"
import * as RedirectUri from "../../domain/oauth/RedirectUri.js"
import * as Scope from "../../domain/oauth/Scope.js"
import * as UpstreamSecrets from "../../domain/UpstreamSecrets.js"
import * as User from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import { UpstreamIdentityProvider } from "../ports/UpstreamIdentityProvider.js"
import * as Telemetry from "../Telemetry.js"
import { type BrowserOutcome, errorToClient, showError } from "./BrowserOutcome.js"
import { type Approved, issueCode } from "./IssueCode.js"
import type { OAuthErrorCode } from "./OAuthError.js"
import { OAuthSettings } from "./OAuthSettings.js"
import { ClientRepository } from "./ports/ClientRepository.js"
import { ConsentStore } from "./ports/ConsentStore.js"
import { PendingLoginStore } from "./ports/PendingLoginStore.js"
import { SessionStore } from "./ports/SessionStore.js"
import { UpstreamUsers } from "./ports/UpstreamUsers.js"

/**
 * Every dynamically registered client shares our one upstream app, so an upstream that
 * remembers consent would hand codes to any registered redirect URI: such clients get our own
 * consent page before their first code for a user (stored once approved).
 */
const askConsent = (client: Client.Client, approved: Approved, now: Date) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const token = yield* secrets.token("consent")
    const tokenHash = yield* secrets.hash(token)
    yield* Effect.flatMap(ConsentStore, (consents) =>
      consents.park(
        new PendingConsent.PendingConsent({
          tokenHash,
          ...approved,
          createdAt: now,
          expiresAt: PendingConsent.expiryFor(now)
        })
      )
    )
    return {
      _tag: "ShowConsent",
      prompt: {
        token,
        clientId: client.id,
        clientName: client.name,
        redirectUri: approved.redirectUri,
        destination: RedirectUri.destination(new URL(approved.redirectUri)),
        scope: approved.scope
      }
    } satisfies BrowserOutcome
  })

/** A confidential web client's user keeps a browser session: the next authorize skips the upstream. */
const startSession = (user: User.User, now: Date) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const token = yield* secrets.token("session")
    const tokenHash = yield* secrets.hash(token)
    yield* Effect.flatMap(SessionStore, (sessions) =>
      sessions.create(
        new BrowserSession({ tokenHash, userId: user.id, createdAt: now, expiresAt: sessionExpiry(now) })
      )
    )
    return token
  })

/**
 * GET /callback — the upstream sends the user back here. We finish the upstream login, map
 * the upstream account to our user (created on first login) and send the user back to the
 * client with our own single-use code, after our consent page where the client needs one.
 */
export const callback = Telemetry.fn("Callback.callback")((callbackUrl: URL) =>
  Effect.gen(function* () {
    const settings = yield* OAuthSettings
    const state = callbackUrl.searchParams.get("state")
    if (state === null || state === "")
      return showError("invalid_request", "the identity provider returned no state")
    const now = new Date(yield* Clock.currentTimeMillis)
    const stateHash = yield* Effect.flatMap(Secrets, (secrets) => secrets.hash(Redacted.make(state)))
    const taken = yield* Effect.flatMap(PendingLoginStore, (pending) => pending.take(stateHash, now))
    if (Option.isNone(taken)) {
      return showError(
        "invalid_request",
        "this login has expired or was already completed; start again from your application"
      )
    }
    const pending = taken.value
    yield* Telemetry.annotate("client.id", pending.clientId)
    const fail = (code: OAuthErrorCode, description: string) =>
      errorToClient(
        pending.redirectUri,
        { code, description },
        Option.getOrUndefined(pending.clientState),
        settings.issuer
      )

    // RFC 6749 §4.1.2.1: the client hears whether the user declined, whether trying again may
    // help, or that the login failed.
    const upstreamError = callbackUrl.searchParams.get("error")
    if (upstreamError !== null) {
      return upstreamError === "access_denied"
        ? fail("access_denied", "the user declined at the identity provider")
        : upstreamError === "temporarily_unavailable"
          ? fail("temporarily_unavailable", "the identity provider is unavailable; try again later")
          : fail("server_error", "the identity provider reported an error")
    }
    const secrets = yield* UpstreamSecrets.fromState(state)
    const upstream = yield* UpstreamIdentityProvider
    const profile = yield* Effect.either(
      upstream.exchange(callbackUrl, { state, ...secrets, redirectUri: settings.callbackUrl })
    )
    if (Either.isLeft(profile)) {
      yield* Effect.logWarning("upstream login failed", profile.left.message)
      return profile.left.unavailable
        ? fail("temporarily_unavailable", "the identity provider could not be reached; try again later")
        : fail("access_denied", "login at the identity provider failed")
    }

    const { uuid } = yield* Secrets
    const ids = { userId: UserId.make(yield* uuid), identityId: IdentityId.make(yield* uuid) }
    const user = yield* Effect.flatMap(UpstreamUsers, (users) =>
      users.upsertFromUpstream(profile.right, ids, now)
    )
    yield* Telemetry.annotate("user.id", user.id)
    if (Either.isLeft(User.canSignIn(user, now))) return fail("access_denied", "this account is banned")

    const found = yield* Effect.flatMap(ClientRepository, (clients) => clients.findById(pending.clientId))
    if (Option.isNone(found)) return showError("invalid_client", "the client was removed during the login")
    const client = found.value
    const approved: Approved = { ...pending, userId: user.id }
    if (Client.requiresConsent(client)) {
      const consented =
        RedirectUri.remembersConsent(new URL(approved.redirectUri)) &&
        (yield* Effect.flatMap(ConsentStore, (consents) =>
          consents.hasConsent(user.id, client.id, Scope.requested(approved.scope))
        ))
      if (!consented) return yield* askConsent(client, approved, now)
    }
    const location = yield* issueCode(approved, now)
    if (client.type !== "confidential") return { _tag: "RedirectToClient", location } satisfies BrowserOutcome
    return {
      _tag: "RedirectToClient",
      location,
      session: yield* startSession(user, now)
    } satisfies BrowserOutcome
  })
)
