import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AccountLinking from "../../domain/auth/AccountLinking.js"
import * as AppMetadata from "../../domain/auth/AppMetadata.js"
import * as Mail from "../../domain/auth/Mail.js"
import * as Ban from "../../domain/Ban.js"
import type { Identity } from "../../domain/Identity.js"
import { IdentityId, UserId } from "../../domain/Ids.js"
import * as UpstreamProfile from "../../domain/UpstreamProfile.js"
import { Email, emailConfirmed, nothingPending, User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import { MailOutbox } from "./ports/MailOutbox.js"
import { OneTimeTokenStore } from "./ports/OneTimeTokenStore.js"
import { UserRepository } from "./ports/UserRepository.js"
import * as SendVerification from "./SendVerification.js"
import * as UserMetadata from "./UserMetadata.js"

/**
 * The account an upstream profile signs into: Supabase Auth's automatic linking (a returning
 * identity, a verified address that joins its user, or a new user) and manual linking to the
 * signed-in user. The provider's callback and an ID token sign-in both end here.
 */

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
/**
 * An unconfirmed user's changes with their address confirmed on top, as Supabase Auth confirms
 * one an upstream account vouches for (`email_verified` into the metadata the changes leave).
 */
const confirming = (user: User, changes: Partial<Pick<User, "userMetadata" | "appMetadata">>, now: Date) => ({
  ...changes,
  ...emailConfirmed(changes.userMetadata ?? user.userMetadata, now)
})

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
    const keep = yield* keepOnly(user, identity, data, now)
    const kept = yield* users.update(user.id, vouched ? confirming(user, keep, now) : keep, now)
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
    const secrets = yield* Secrets
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
          IdentityId.make(yield* secrets.uuid),
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
          confirmedBefore
            ? {
                userMetadata: metadataOf(decision.user),
                appMetadata: withProvider(decision.user, profile.provider)
              }
            : confirming(decision.user, yield* keepOnly(decision.user, identity, data, now), now),
          now
        )
        yield* announceLink(user, profile.provider, now)
        return { user, identity, unverified: false }
      }
      case "CreateAccount": {
        if (settings.disableSignup) return yield* new AuthError.SignupDisabled()
        const made = newUser(
          UserId.make(yield* secrets.uuid),
          profile,
          decision.email,
          settings.audience,
          now
        )
        const unverified = Option.isSome(made.email) && !emailVerified
        const user = unverified
          ? new User({ ...made, emailConfirmedAt: Option.none(), confirmationSentAt: Option.some(now) })
          : Option.isSome(made.email)
            ? new User({ ...made, ...emailConfirmed(made.userMetadata, now) })
            : made
        const identity = UpstreamProfile.newIdentity(
          IdentityId.make(yield* secrets.uuid),
          user.id,
          profile,
          now
        )
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
 * another, is refused. A user without an address (an anonymous one, say) takes the provider's,
 * and whatever was pending — a number's change, a reauthentication code — ends with it, as
 * Supabase Auth's `UpdateUserEmailFromIdentities` clears it: confirmed and made permanent when
 * the provider verified it; otherwise the confirmation mail goes out and the link, kept, waits on
 * it (`unverified`), `email_verified` false in the metadata unless `MAILER_AUTOCONFIRM`.
 */
export const linkToUser = (userId: UserId, profile: UpstreamProfile.UpstreamProfile, now: Date) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    const autoconfirm = (yield* AuthSettings).mailerAutoconfirm
    const found = yield* users.findById(userId)
    if (Option.isNone(found)) return yield* new AuthError.NoSuchUser()
    const existing = yield* users.findByIdentity(profile.provider, profile.subject)
    if (Option.isSome(existing)) {
      return yield* new AuthError.IdentityAlreadyLinked({ toAnotherUser: existing.value.user.id !== userId })
    }
    const identity = UpstreamProfile.newIdentity(
      IdentityId.make(yield* (yield* Secrets).uuid),
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
        (stored) => ({
          appMetadata: withProvider(stored, profile.provider),
          // An address given leaves nothing pending that was asked without it.
          ...(takesAddress
            ? {
                ...nothingPending,
                email,
                ...(verified
                  ? { ...emailConfirmed(stored.userMetadata, now), isAnonymous: false }
                  : {
                      confirmationSentAt: Option.some(now),
                      // Unconfirmed and, unless MAILER_AUTOCONFIRM, said so in the metadata.
                      ...(autoconfirm
                        ? {}
                        : { userMetadata: { ...stored.userMetadata, email_verified: false } })
                    })
              }
            : {})
        }),
        now
      )
      .pipe(Effect.catchTag("EmailExists", () => Effect.fail(new AuthError.LinkedEmailInUse())))
    if (takesAddress) yield* (yield* OneTimeTokenStore).endAllOf(userId)
    if (takesAddress && !verified) {
      yield* mailConfirmation(user, now)
      return { user, identity, unverified: true }
    }
    yield* announceLink(user, profile.provider, now)
    return { user, identity, unverified: false }
  })
