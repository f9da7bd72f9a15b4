import { Clock, Effect, Either, Option, Redacted } from "effect"
import type { Client } from "../../domain/oauth/Client.js"
import * as PendingLogin from "../../domain/oauth/PendingLogin.js"
import * as RedirectUri from "../../domain/oauth/RedirectUri.js"
import * as Scope from "../../domain/oauth/Scope.js"
import * as Pkce from "../../domain/Pkce.js"
import * as UpstreamSecrets from "../../domain/UpstreamSecrets.js"
import * as User from "../../domain/User.js"
import { SecretHasher } from "../ports/SecretHasher.js"
import { TokenMint } from "../ports/TokenMint.js"
import { UpstreamIdentityProvider } from "../ports/UpstreamIdentityProvider.js"
import { type BrowserOutcome, errorToClient, showError } from "./BrowserOutcome.js"
import { findClient } from "./ClientAuthentication.js"
import { type Approved, issueCode } from "./IssueCode.js"
import type { OAuthErrorCode } from "./OAuthError.js"
import { OAuthSettings } from "./OAuthSettings.js"
import { ClientRepository } from "./ports/ClientRepository.js"
import { PendingLoginStore } from "./ports/PendingLoginStore.js"
import { SessionStore } from "./ports/SessionStore.js"
import { UpstreamUsers } from "./ports/UpstreamUsers.js"

export interface AuthorizeRequest {
  /** Query parameters that appeared once. */
  readonly params: Readonly<Record<string, string>>
  /** Names of parameters that appeared more than once (RFC 6749 §3.1 forbids it). */
  readonly duplicates: ReadonlyArray<string>
  /** The browser session cookie, if the browser sent one. */
  readonly session?: string
}

type AuthorizeOutcome = BrowserOutcome

/**
 * A confidential web client's user with a live browser session skips the upstream: the code
 * is issued at once. Public clients always go through the upstream (and consent).
 */
const fromSession = (
  client: Client,
  cookie: string | undefined,
  approved: Omit<Approved, "userId">,
  now: Date
) =>
  Effect.gen(function* () {
    if (client.type !== "confidential" || cookie === undefined) return Option.none<string>()
    const hash = yield* Effect.flatMap(SecretHasher, (hasher) => hasher.hash(Redacted.make(cookie)))
    const session = yield* Effect.flatMap(SessionStore, (sessions) => sessions.find(hash, now))
    if (Option.isNone(session)) return Option.none<string>()
    const user = yield* Effect.flatMap(UpstreamUsers, (users) => users.findById(session.value.userId))
    if (Option.isNone(user) || Either.isLeft(User.canSignIn(user.value, now))) return Option.none<string>()
    yield* Effect.annotateCurrentSpan("user.id", user.value.id)
    return Option.some(yield* issueCode({ ...approved, userId: user.value.id }, now))
  })

/** RFC 8707 §2: an absolute URI without a fragment. */
const isResourceIndicator = (value: string): boolean => {
  if (value.includes("#")) return false
  try {
    new URL(value)
    return true
  } catch {
    return false
  }
}

/**
 * GET / — validates the authorization request, parks it, and sends the user to the upstream
 * identity provider with our own state, nonce and PKCE.
 */
export const authorize = (request: AuthorizeRequest) =>
  Effect.gen(function* () {
    const { params, duplicates } = request
    const settings = yield* OAuthSettings
    if (duplicates.includes("client_id")) return showError("invalid_request", "client_id is repeated")
    const clientId = params.client_id
    if (clientId === undefined || clientId === "")
      return showError("invalid_request", "client_id is required")
    const found = yield* findClient(clientId)
    if (Option.isNone(found)) return showError("invalid_client", "unknown client_id")
    const client: Client = found.value
    yield* Effect.annotateCurrentSpan("client.id", client.id)
    if (duplicates.includes("redirect_uri")) return showError("invalid_request", "redirect_uri is repeated")
    const redirectUri = params.redirect_uri
    if (redirectUri === undefined || redirectUri === "")
      return showError("invalid_request", "redirect_uri is required")
    if (!RedirectUri.matchesAny(client.redirectUris, redirectUri)) {
      return showError("invalid_request", "redirect_uri is not registered for this client")
    }

    // From here on the redirect URI is trusted: errors go back to the client (RFC 6749 §4.1.2.1).
    const clientState = params.state
    const toClient = (code: OAuthErrorCode, description: string) =>
      errorToClient(redirectUri, { code, description }, clientState, settings.issuer)
    const repeated = duplicates[0]
    if (repeated !== undefined) return toClient("invalid_request", `${repeated} is repeated`)
    if (params.response_type !== "code") {
      return toClient("unsupported_response_type", "response_type must be code")
    }
    let codeChallenge = Option.none<Pkce.CodeChallenge>()
    if (params.code_challenge !== undefined) {
      const parsed = Pkce.parseChallenge(params.code_challenge, params.code_challenge_method)
      if (parsed._tag === "Left") return toClient("invalid_request", parsed.left.message)
      codeChallenge = Option.some(parsed.right)
    } else if (client.type === "public") {
      return toClient("invalid_request", "code_challenge with code_challenge_method S256 is required")
    } else if (params.code_challenge_method !== undefined) {
      return toClient("invalid_request", "code_challenge_method without code_challenge")
    }
    const scope = Option.fromNullable(params.scope)
    if (Option.isSome(scope) && !Scope.isValid(scope.value))
      return toClient("invalid_scope", "malformed scope")
    const resource = Option.fromNullable(params.resource)
    if (Option.isSome(resource) && !isResourceIndicator(resource.value)) {
      return toClient("invalid_target", "resource must be an absolute URI without a fragment")
    }

    const now = new Date(yield* Clock.currentTimeMillis)
    yield* Effect.flatMap(ClientRepository, (clients) => clients.touch(client.id, now))
    const viaSession = yield* fromSession(
      client,
      request.session,
      {
        clientId: client.id,
        redirectUri,
        codeChallenge,
        clientState: Option.fromNullable(clientState),
        scope,
        resource
      },
      now
    )
    if (Option.isSome(viaSession))
      return { _tag: "RedirectToClient", location: viaSession.value } satisfies AuthorizeOutcome

    const state = yield* Effect.flatMap(TokenMint, (mint) => mint.token("state"))
    const stateHash = yield* Effect.flatMap(SecretHasher, (hasher) => hasher.hash(state))
    yield* Effect.flatMap(PendingLoginStore, (pending) =>
      pending.put(
        new PendingLogin.PendingLogin({
          stateHash,
          clientId: client.id,
          redirectUri,
          codeChallenge,
          clientState: Option.fromNullable(clientState),
          scope,
          resource,
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
        Effect.map((url): AuthorizeOutcome => ({ _tag: "RedirectToUpstream", location: url.toString() })),
        Effect.catchTag("UpstreamLoginFailed", (error) =>
          Effect.as(
            Effect.logWarning("upstream unavailable", error.message),
            toClient("temporarily_unavailable", "the identity provider is unavailable")
          )
        )
      )
  }).pipe(Effect.withSpan("Authorize.authorize"))
