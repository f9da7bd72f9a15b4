import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AuthorizationRequest from "../../domain/oauth/AuthorizationRequest.js"
import * as Client from "../../domain/oauth/Client.js"
import * as PendingLogin from "../../domain/oauth/PendingLogin.js"
import * as UpstreamSecrets from "../../domain/UpstreamSecrets.js"
import * as User from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import { UpstreamIdentityProvider } from "../ports/UpstreamIdentityProvider.js"
import * as Telemetry from "../Telemetry.js"
import { type BrowserOutcome, errorToClient, showError } from "./BrowserOutcome.js"
import { findClient } from "./ClientAuthentication.js"
import { issueCode } from "./IssueCode.js"
import type { OAuthErrorCode } from "./OAuthError.js"
import { OAuthSettings } from "./OAuthSettings.js"
import { ClientRepository } from "./ports/ClientRepository.js"
import { PendingLoginStore } from "./ports/PendingLoginStore.js"
import { SessionStore } from "./ports/SessionStore.js"
import { UpstreamUsers } from "./ports/UpstreamUsers.js"

/**
 * A confidential web client's user with a live browser session skips the upstream: the code
 * is issued at once. Public clients always go through the upstream (and consent).
 */
const fromSession = (
  client: Client.Client,
  cookie: Option.Option<string>,
  approved: AuthorizationRequest.Valid,
  now: Date
) =>
  Effect.gen(function* () {
    if (!Client.keepsBrowserSession(client) || Option.isNone(cookie)) return Option.none<string>()
    const hash = yield* Effect.flatMap(Secrets, (secrets) => secrets.hash(Redacted.make(cookie.value)))
    const session = yield* Effect.flatMap(SessionStore, (sessions) => sessions.find(hash, now))
    if (Option.isNone(session)) return Option.none<string>()
    const user = yield* Effect.flatMap(UpstreamUsers, (users) => users.findById(session.value.userId))
    if (Option.isNone(user) || Either.isLeft(User.canSignIn(user.value, now))) return Option.none<string>()
    yield* Telemetry.annotate("user.id", user.value.id)
    return Option.some(yield* issueCode({ ...approved, userId: user.value.id }, now))
  })

/**
 * GET / — validates the authorization request, parks it, and sends the user to the upstream
 * identity provider with our own state, nonce and PKCE.
 */
export const authorize = Telemetry.fn("Authorize.authorize")(
  (request: AuthorizationRequest.Parameters, session: Option.Option<string>) =>
    Effect.gen(function* () {
      const settings = yield* OAuthSettings
      const refused = (refusal: AuthorizationRequest.Refusal): BrowserOutcome =>
        refusal._tag === "Untrusted"
          ? showError(refusal.code, refusal.description)
          : errorToClient(refusal.redirectUri, refusal, Option.getOrUndefined(refusal.state), settings.issuer)
      const clientId = AuthorizationRequest.clientIdOf(request)
      if (Either.isLeft(clientId)) return refused(clientId.left)
      const found = yield* findClient(clientId.right)
      if (Option.isNone(found)) return showError("invalid_client", "unknown client_id")
      const client = found.value
      yield* Telemetry.annotate("client.id", client.id)
      const valid = AuthorizationRequest.validate(request, client)
      if (Either.isLeft(valid)) return refused(valid.left)
      const approved = valid.right
      const toClient = (code: OAuthErrorCode, description: string) =>
        errorToClient(
          approved.redirectUri,
          { code, description },
          Option.getOrUndefined(approved.clientState),
          settings.issuer
        )

      const now = new Date(yield* Clock.currentTimeMillis)
      yield* Effect.flatMap(ClientRepository, (clients) => clients.touch(client.id, now))
      const viaSession = yield* fromSession(client, session, approved, now)
      if (Option.isSome(viaSession))
        return { _tag: "RedirectToClient", location: viaSession.value } satisfies BrowserOutcome

      const secrets = yield* Secrets
      const state = yield* secrets.token("state")
      const stateHash = yield* secrets.hash(state)
      yield* Effect.flatMap(PendingLoginStore, (pending) =>
        pending.put(
          new PendingLogin.PendingLogin({
            stateHash,
            ...approved,
            createdAt: now,
            expiresAt: PendingLogin.expiryFor(now)
          })
        )
      )
      const { codeVerifier, nonce } = yield* UpstreamSecrets.fromState(Redacted.value(state))
      const upstream = yield* UpstreamIdentityProvider
      return yield* upstream
        .authorizationUrl({
          state: Redacted.value(state),
          nonce,
          codeVerifier,
          redirectUri: settings.callbackUrl
        })
        .pipe(
          Effect.map((url): BrowserOutcome => ({ _tag: "RedirectToUpstream", location: url.toString() })),
          Effect.catchTag("UpstreamLoginFailed", (error) =>
            Effect.as(
              Effect.logWarning("upstream unavailable", error.message),
              toClient("temporarily_unavailable", "the identity provider is unavailable")
            )
          )
        )
    })
)
