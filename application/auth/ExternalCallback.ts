import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as AccountLinking from "../../domain/auth/AccountLinking.js"
import * as AppMetadata from "../../domain/auth/AppMetadata.js"
import type { ExternalLogin } from "../../domain/auth/ExternalLogin.js"
import { FlowState, FlowStateId } from "../../domain/auth/FlowState.js"
import * as Mail from "../../domain/auth/Mail.js"
import * as Ban from "../../domain/Ban.js"
import type { Identity } from "../../domain/Identity.js"
import { IdentityId, UserId } from "../../domain/Ids.js"
import * as UpstreamProfile from "../../domain/UpstreamProfile.js"
import * as UpstreamSecrets from "../../domain/UpstreamSecrets.js"
import { Email, User } from "../../domain/User.js"
import { SecretHasher } from "../ports/SecretHasher.js"
import { TokenMint } from "../ports/TokenMint.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import * as IssueSession from "./IssueSession.js"
import * as ProviderTokenSeal from "./ProviderTokenSeal.js"
import { ExternalLoginStore } from "./ports/ExternalLoginStore.js"
import { ExternalProviders } from "./ports/ExternalProviders.js"
import { FlowStateStore } from "./ports/FlowStateStore.js"
import { MailOutbox } from "./ports/MailOutbox.js"
import { Transactions } from "./ports/Transactions.js"
import { UserRepository } from "./ports/UserRepository.js"
import * as SendVerification from "./SendVerification.js"
import * as UserMetadata from "./UserMetadata.js"

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

/** A user as the provider's profile makes it, under the service's audience. */
const newUser = (
  id: UserId,
  profile: UpstreamProfile.UpstreamProfile,
  email: Option.Option<string>,
  audience: string,
  now: Date
): User => new User({ ...UpstreamProfile.newUser(id, { ...profile, email }, now), aud: audience })

const withProvider = (user: User, provider: string) => AppMetadata.withProvider(user.appMetadata, provider)

/** The identity-linked notification, when it is on and the user has an address. */
const announceLink = (user: User, provider: string, now: Date) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    if (!settings.notifications.has("identity_linked_notification") || Option.isNone(user.email)) return
    const to = user.email.value
    yield* Effect.flatMap(MailOutbox, (outbox) =>
      outbox.enqueue(
        new Mail.Message({
          kind: "identity_linked_notification",
          to,
          variables: { SiteURL: settings.siteUrl, Email: to, Provider: provider, Data: user.userMetadata }
        }),
        now
      )
    )
  })

/**
 * What an unconfirmed account keeps when a provider account signs into it (Supabase Auth's
 * `RemoveUnconfirmedIdentities`): only that identity, its data as the user's metadata, and no
 * password — so that whoever signed up with the address before its owner proved it keeps no
 * way in, by password or by another provider account.
 */
const keepOnly = (user: User, identity: Identity, data: Readonly<Record<string, unknown>>, now: Date) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    for (const other of yield* users.identitiesOf(user.id)) {
      if (other.id !== identity.id) yield* users.removeIdentity(user.id, other.id)
    }
    yield* users.setPasswordHash(user.id, Option.none(), now)
    return { userMetadata: { ...data }, appMetadata: { ...user.appMetadata, providers: [identity.provider] } }
  })

/** Whether the provider's address is the user's own (addresses compare without case). */
const sameAddress = (profileEmail: Option.Option<string>, user: User) =>
  Option.isSome(profileEmail) &&
  Option.isSome(user.email) &&
  profileEmail.value.toLowerCase() === user.email.value.toLowerCase()

/**
 * A returning provider account whose user never confirmed the address (made by an earlier
 * sign-in the provider did not vouch for): the account keeps only this identity (keepOnly); it
 * is confirmed now if the provider vouches for that very address (or mail is autoconfirmed);
 * otherwise the confirmation is mailed again, unless one went out too recently, and the
 * sign-in stops there, as in Supabase Auth.
 */
const confirmReturning = (
  user: User,
  identity: Identity,
  data: Readonly<Record<string, unknown>>,
  vouched: boolean,
  now: Date
) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    const settings = yield* AuthSettings
    const kept = yield* users.update(
      user.id,
      {
        ...(yield* keepOnly(user, identity, data, now)),
        ...(vouched ? { emailConfirmedAt: Option.some(now) } : {})
      },
      now
    )
    if (vouched || Option.isNone(kept.email)) return { user: kept, identity, unverified: false }
    yield* SendVerification.prepare({
      user: kept,
      purpose: "confirmation",
      kind: "confirmation",
      type: "signup",
      to: kept.email.value,
      redirectTo: settings.siteUrl,
      spacing: Option.some(settings.verification.spacing),
      now
    })
      .pipe(Effect.flatMap((prepared) => SendVerification.write(prepared, "mail")))
      .pipe(Effect.catchTag("IssuedTooSoon", () => Effect.void))
    return { user: kept, identity, unverified: true }
  })

/**
 * The confirmation mail of an address a provider gave but did not verify, leading to the site;
 * one sent a moment ago is enough.
 */
const mailConfirmation = (user: User, now: Date) =>
  Effect.gen(function* () {
    if (Option.isNone(user.email)) return
    const settings = yield* AuthSettings
    yield* SendVerification.prepare({
      user,
      purpose: "confirmation",
      kind: "confirmation",
      type: "signup",
      to: user.email.value,
      redirectTo: settings.siteUrl,
      spacing: Option.none(),
      now
    })
      .pipe(Effect.flatMap((prepared) => SendVerification.write(prepared, "mail")))
      .pipe(Effect.catchTag("IssuedTooSoon", () => Effect.void))
  })

/**
 * Who the provider's profile is here, written in one transaction as Supabase Auth's automatic
 * linking decides it (AccountLinking): the identity's user signs in again (its identity data
 * refreshed); or a user whose address the provider verified gets the identity (their address
 * now confirmed and, if nobody had confirmed it, every other way in removed, so that whoever
 * signed up with the address first cannot keep a door into the account); or a new user is made. A new user whose
 * address the provider did not verify is made unconfirmed and sent the confirmation mail, and
 * the sign-in stops there, as in Supabase Auth.
 */
export const signInOrUp = (profile: UpstreamProfile.UpstreamProfile, now: Date) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const users = yield* UserRepository
    const mint = yield* TokenMint
    // An address we could not write to is dropped, not a reason to refuse the sign-in.
    const email = Option.flatMap(profile.email, (address) => Either.getRight(decodeEmail(address)))
    const emailVerified = Option.isSome(email) && (profile.emailVerified || settings.mailerAutoconfirm)
    const existing = yield* users.findByIdentity(profile.provider, profile.subject)
    const owner = Option.isSome(email) ? yield* users.findByEmail(email.value) : Option.none()
    const decision = AccountLinking.decide({ existing, email, emailVerified, owner })
    const data = { ...profile.data, sub: profile.subject }
    const metadataOf = (user: User) => UserMetadata.merge(user.userMetadata, data)

    switch (decision._tag) {
      case "AccountExists": {
        if (Ban.isBanned(decision.user.bannedUntil, now)) return yield* new AuthError.UserIsBanned()
        yield* users.refreshIdentity(decision.identity.id, data, now)
        const user = yield* users.update(
          decision.user.id,
          {
            userMetadata: metadataOf(decision.user),
            appMetadata: withProvider(decision.user, profile.provider)
          },
          now
        )
        // Whatever the provider says now: an account with an address nobody confirmed stays
        // shut until it is (with `_EMAIL_OPTIONAL` too, as Supabase Auth checks the user's own).
        const unconfirmed = Option.isSome(user.email) && Option.isNone(user.emailConfirmedAt)
        if (!unconfirmed) return { user, identity: decision.identity, unverified: false }
        // The provider vouches only for the address it gave, which must be the user's own.
        const vouched = settings.mailerAutoconfirm || (profile.emailVerified && sameAddress(email, user))
        return yield* confirmReturning(user, decision.identity, data, vouched, now)
      }
      case "LinkAccount": {
        if (Ban.isBanned(decision.user.bannedUntil, now)) return yield* new AuthError.UserIsBanned()
        const identity = UpstreamProfile.newIdentity(
          IdentityId.make(yield* mint.uuid),
          decision.user.id,
          profile,
          now
        )
        yield* users.addIdentity(identity)
        // An account nobody confirmed keeps only the identity that proves the address now:
        // whatever signed up with it before (a password, another provider account) goes.
        const confirmedBefore = Option.isSome(decision.user.emailConfirmedAt)
        const user = yield* users.update(
          decision.user.id,
          {
            ...(confirmedBefore
              ? {
                  userMetadata: metadataOf(decision.user),
                  appMetadata: withProvider(decision.user, profile.provider)
                }
              : yield* keepOnly(decision.user, identity, data, now)),
            emailConfirmedAt: Option.orElse(decision.user.emailConfirmedAt, () => Option.some(now))
          },
          now
        )
        yield* announceLink(user, profile.provider, now)
        return { user, identity, unverified: false }
      }
      case "CreateAccount": {
        if (settings.disableSignup) return yield* new AuthError.SignupDisabled()
        const made = newUser(UserId.make(yield* mint.uuid), profile, decision.email, settings.audience, now)
        const unverified = Option.isSome(made.email) && !emailVerified
        const user = unverified
          ? new User({ ...made, emailConfirmedAt: Option.none(), confirmationSentAt: Option.some(now) })
          : new User({
              ...made,
              emailConfirmedAt: Option.isSome(made.email) ? Option.some(now) : Option.none()
            })
        const identity = UpstreamProfile.newIdentity(IdentityId.make(yield* mint.uuid), user.id, profile, now)
        yield* users.insert(user, [identity], Option.none())
        if (unverified) yield* mailConfirmation(user, now)
        return { user, identity, unverified }
      }
    }
  })

const decodeEmail = Schema.decodeEither(Email)

/**
 * Manual linking (`GET /user/identities/authorize`, or an ID token with `link_identity`;
 * `SECURITY_MANUAL_LINKING_ENABLED`): the provider account joins the signed-in user who asked,
 * as Supabase Auth's `linkIdentityToUser` links it. An account already linked, to this user or
 * another, is refused. A user without an address (an anonymous one, say) takes the provider's:
 * confirmed and made permanent when the provider verified it; otherwise the confirmation mail
 * goes out and the link, kept, waits on it (`unverified`).
 */
export const linkToUser = (userId: UserId, profile: UpstreamProfile.UpstreamProfile, now: Date) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    const found = yield* users.findById(userId)
    if (Option.isNone(found)) return yield* new AuthError.NoSuchUser()
    const existing = yield* users.findByIdentity(profile.provider, profile.subject)
    if (Option.isSome(existing)) {
      return yield* new AuthError.IdentityAlreadyLinked({ toAnotherUser: existing.value.user.id !== userId })
    }
    const identity = UpstreamProfile.newIdentity(
      IdentityId.make(yield* (yield* TokenMint).uuid),
      userId,
      profile,
      now
    )
    yield* users.addIdentity(identity)
    const email = Option.flatMap(profile.email, (address) => Either.getRight(decodeEmail(address)))
    const takesAddress = Option.isNone(found.value.email) && Option.isSome(email)
    const verified = takesAddress && profile.emailVerified
    const user = yield* users
      .update(
        userId,
        {
          appMetadata: withProvider(found.value, profile.provider),
          ...(takesAddress
            ? verified
              ? { email, emailConfirmedAt: Option.some(now), isAnonymous: false }
              : { email, confirmationSentAt: Option.some(now) }
            : {})
        },
        now
      )
      .pipe(Effect.catchTag("EmailExists", () => Effect.fail(new AuthError.LinkedEmailInUse())))
    if (takesAddress && !verified) {
      yield* mailConfirmation(user, now)
      return { user, identity, unverified: true }
    }
    yield* announceLink(user, profile.provider, now)
    return { user, identity, unverified: false }
  })

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
      const mint = yield* TokenMint
      const flows = yield* FlowStateStore
      const id = FlowStateId.make(yield* mint.uuid)
      const code = yield* mint.uuid
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
      const codeHash = yield* (yield* SecretHasher).hash(Redacted.make(code))
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
    const stateHash = yield* (yield* SecretHasher).hash(Redacted.make(state))
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
      return failed(new AuthError.InvalidInput({ message: "Unsupported provider: provider is not enabled" }))
    const upstream = provider.value.upstream
    if (Either.isLeft(upstream))
      return failed(new AuthError.InvalidInput({ message: `Unsupported provider: ${upstream.left}` }))
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
