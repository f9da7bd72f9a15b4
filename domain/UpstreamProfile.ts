import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { Identity } from "./Identity.js"
import type { IdentityId, UserId } from "./Ids.js"
import { Email, User } from "./User.js"

/** What an upstream identity provider told us about the person who just logged in. */
export interface UpstreamProfile {
  readonly provider: string
  /** The provider's stable subject identifier (`sub`, or the numeric id for GitHub). */
  readonly subject: string
  readonly email: Option.Option<string>
  readonly emailVerified: boolean
  readonly data: Readonly<Record<string, unknown>>
  /**
   * The provider's own tokens, which the auth service hands to the application once
   * (`provider_token`, `provider_refresh_token`) and never stores. Absent where unused.
   */
  readonly tokens?: {
    readonly accessToken: Redacted.Redacted<string>
    readonly refreshToken: Option.Option<Redacted.Redacted<string>>
  }
}

/** The user created on someone's first login through an upstream, as Supabase Auth shapes it. */
export const newUser = (id: UserId, profile: UpstreamProfile, now: Date): User => {
  // An address we could not use to reach the user is dropped, not a reason to refuse the login.
  const email = Option.flatMap(profile.email, (raw) => Either.getRight(Schema.decodeEither(Email)(raw)))
  return new User({
    id,
    aud: "authenticated",
    role: "authenticated",
    email,
    phone: Option.none(),
    emailConfirmedAt: profile.emailVerified && Option.isSome(email) ? Option.some(now) : Option.none(),
    phoneConfirmedAt: Option.none(),
    confirmationSentAt: Option.none(),
    invitedAt: Option.none(),
    lastSignInAt: Option.some(now),
    appMetadata: { provider: profile.provider, providers: [profile.provider] },
    userMetadata: { ...profile.data },
    isAnonymous: false,
    bannedUntil: Option.none(),
    createdAt: now,
    updatedAt: now
  })
}

const identityEmail = (profile: UpstreamProfile) =>
  Option.map(profile.email, (email) => email.trim().toLowerCase())

export const newIdentity = (id: IdentityId, userId: UserId, profile: UpstreamProfile, now: Date): Identity =>
  new Identity({
    id,
    userId,
    provider: profile.provider,
    providerId: profile.subject,
    identityData: { ...profile.data, sub: profile.subject },
    email: identityEmail(profile),
    createdAt: now,
    updatedAt: now,
    lastSignInAt: Option.some(now)
  })

/** A returning user: the identity's data is refreshed from the upstream, the sign-in recorded. */
export const signedInAgain = (identity: Identity, profile: UpstreamProfile, now: Date): Identity =>
  new Identity({
    ...identity,
    identityData: { ...profile.data, sub: profile.subject },
    email: identityEmail(profile),
    updatedAt: now,
    lastSignInAt: Option.some(now)
  })
