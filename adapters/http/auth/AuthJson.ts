import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as IssueSession from "../../../application/auth/IssueSession.js"
import type { Factor } from "../../../domain/auth/Factor.js"
import type { Identity } from "../../../domain/Identity.js"
import type { User } from "../../../domain/User.js"

/*
 * The auth service's response bodies of users and sessions, as Supabase Auth's Go structs encode
 * them: what every endpoint answering with a user or a session writes.
 */

/**
 * The user object of Supabase Auth's wire (`models.User` as Go encodes it): `email` and `phone`
 * are empty strings when unset, timestamps that are unset are left out, `identities` is always
 * an array, and `confirmed_at` is the earlier of the two confirmations. `factors` is there only
 * when the user has any (Go's `omitempty` on the slice).
 */
export const user = (
  user: User,
  identities: ReadonlyArray<Identity>,
  factors: ReadonlyArray<Factor> = []
) => {
  const iso = (value: Option.Option<Date>) =>
    Option.getOrUndefined(Option.map(value, (date) => date.toISOString()))
  const confirmations = [user.emailConfirmedAt, user.phoneConfirmedAt].flatMap((at) =>
    Option.isSome(at) ? [at.value.getTime()] : []
  )
  return withoutUndefined({
    id: user.id,
    aud: user.aud,
    role: user.role,
    email: Option.getOrElse(user.email, () => ""),
    email_confirmed_at: iso(user.emailConfirmedAt),
    phone: Option.getOrElse(user.phone, () => ""),
    phone_confirmed_at: iso(user.phoneConfirmedAt),
    confirmation_sent_at: iso(user.confirmationSentAt),
    recovery_sent_at: iso(user.recoverySentAt),
    new_email: Option.getOrUndefined(user.emailChange),
    email_change_sent_at: iso(user.emailChangeSentAt),
    new_phone: Option.getOrUndefined(user.phoneChange),
    phone_change_sent_at: iso(user.phoneChangeSentAt),
    reauthentication_sent_at: iso(user.reauthenticationSentAt),
    confirmed_at: confirmations.length === 0 ? undefined : new Date(Math.min(...confirmations)).toISOString(),
    invited_at: iso(user.invitedAt),
    last_sign_in_at: iso(user.lastSignInAt),
    app_metadata: user.appMetadata,
    user_metadata: user.userMetadata,
    factors: factors.length === 0 ? undefined : factors.map(factor),
    identities: identities.map(identity),
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
    banned_until: iso(user.bannedUntil),
    deleted_at: iso(user.deletedAt),
    is_anonymous: user.isAnonymous
  })
}

/**
 * A factor as Supabase Auth's `models.Factor` encodes it: `friendly_name` left out when blank,
 * `phone` `""` when none, `last_challenged_at` `null` until the first challenge; the WebAuthn
 * fields (`web_authn_aaguid`, `last_webauthn_challenge_data`) are left out, as Go leaves them
 * when unset.
 */
export const factor = (factor: Factor) =>
  withoutUndefined({
    id: factor.id,
    created_at: factor.createdAt.toISOString(),
    updated_at: factor.updatedAt.toISOString(),
    status: factor.status,
    friendly_name: factor.friendlyName === "" ? undefined : factor.friendlyName,
    factor_type: factor.factorType,
    phone: Option.getOrElse(factor.phone, () => ""),
    last_challenged_at: Option.getOrNull(Option.map(factor.lastChallengedAt, (at) => at.toISOString()))
  })

/** An identity as Supabase Auth encodes it: `identity_id` is ours, `id` the provider's subject. */
const identity = (identity: Identity) =>
  withoutUndefined({
    identity_id: identity.id,
    id: identity.providerId,
    user_id: identity.userId,
    identity_data: identity.identityData,
    provider: identity.provider,
    last_sign_in_at: Option.getOrUndefined(Option.map(identity.lastSignInAt, (at) => at.toISOString())),
    created_at: identity.createdAt.toISOString(),
    updated_at: identity.updatedAt.toISOString(),
    email: Option.getOrUndefined(identity.email)
  })

/**
 * Supabase Auth's session response (`/token`, `/signup` under autoconfirm): the spec's fields
 * (`access_token`, `token_type`, `expires_in`, `refresh_token`) with Supabase Auth's
 * `expires_at` and `user`, which supabase-js reads to store the session.
 */
export const session = (grant: IssueSession.Grant, extra: Readonly<Record<string, unknown>> = {}) => ({
  access_token: Redacted.value(grant.access.token),
  token_type: "bearer",
  expires_in: grant.access.expiresIn,
  expires_at: grant.access.expiresAt,
  refresh_token: Redacted.value(grant.refreshToken),
  user: user(grant.user, grant.identities, grant.factors),
  ...extra
})

/** Go's `omitempty` for the fields that have it: absent rather than `null`. */
const withoutUndefined = <T extends Record<string, unknown>>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined))
