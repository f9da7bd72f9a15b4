import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Identity } from "../../domain/Identity.js"
import { IdentityId, UserId } from "../../domain/Ids.js"
import { type Email, type Phone, User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"

/** The provider a user signed up with: `email`, `phone`, or none for an anonymous user. */
export type Provider = "email" | "phone"

/**
 * A user signing up as Supabase Auth creates one: role `authenticated`, `app_metadata` naming
 * the provider, confirmed at once under autoconfirm, and as `user_metadata` what its sign-up
 * gives the new identity (`RemoveUnconfirmedIdentities` copies it to the user there): the
 * subject, the address, `email_verified` and `phone_verified`, then the sign-up's `data` where
 * it names other keys. Confirming the address later sets `email_verified` (`emailConfirmed`);
 * nothing there sets `phone_verified`, nor puts a number in.
 */
export const user = (options: {
  readonly id: UserId
  readonly aud: string
  readonly contact:
    | { readonly _tag: "email"; readonly email: Email }
    | { readonly _tag: "phone"; readonly phone: Phone }
  readonly data: Readonly<Record<string, unknown>>
  readonly confirmed: boolean
  /**
   * Who makes the user: a sign-up, or an administrator (an invitation, a generated link), whose
   * user Supabase Auth gives the `data` alone as metadata.
   */
  readonly madeBy?: "signUp" | "admin"
  readonly now: Date
}): User => {
  const { contact, now } = options
  const confirmedAt = options.confirmed ? Option.some(now) : Option.none()
  return new User({
    id: options.id,
    aud: options.aud,
    role: "authenticated",
    email: contact._tag === "email" ? Option.some(contact.email) : Option.none(),
    phone: contact._tag === "phone" ? Option.some(contact.phone) : Option.none(),
    emailConfirmedAt: contact._tag === "email" ? confirmedAt : Option.none(),
    phoneConfirmedAt: contact._tag === "phone" ? confirmedAt : Option.none(),
    confirmationSentAt: Option.none(),
    invitedAt: Option.none(),
    lastSignInAt: Option.none(),
    appMetadata: { provider: contact._tag, providers: [contact._tag] },
    userMetadata:
      options.madeBy === "admin"
        ? { ...options.data }
        : signUpMetadata(options.id, contact._tag === "email" ? Option.some(contact.email) : Option.none(), {
            verified: contact._tag === "email" && options.confirmed,
            data: options.data
          }),
    isAnonymous: false,
    bannedUntil: Option.none(),
    createdAt: now,
    updatedAt: now
  })
}

const signUpMetadata = (
  id: UserId,
  email: Option.Option<Email>,
  options: { readonly verified: boolean; readonly data: Readonly<Record<string, unknown>> }
): Record<string, unknown> => {
  const claims: Record<string, unknown> = {
    sub: id,
    ...(Option.isSome(email) ? { email: email.value } : {}),
    email_verified: options.verified,
    phone_verified: false
  }
  return withData(claims, options.data)
}

/** The claims, then the sign-up's `data` where it names other keys, as Supabase Auth merges them. */
const withData = (claims: Record<string, unknown>, data: Readonly<Record<string, unknown>>) => {
  for (const [key, value] of Object.entries(data)) if (!(key in claims)) claims[key] = value
  return claims
}

/** An anonymous user: no email, no phone, no identity, `is_anonymous`; `data` as metadata. */
export const anonymous = (options: {
  readonly id: UserId
  readonly aud: string
  readonly data: Readonly<Record<string, unknown>>
  readonly now: Date
}): User =>
  new User({
    id: options.id,
    aud: options.aud,
    role: "authenticated",
    email: Option.none(),
    phone: Option.none(),
    emailConfirmedAt: Option.none(),
    phoneConfirmedAt: Option.none(),
    confirmationSentAt: Option.none(),
    invitedAt: Option.none(),
    lastSignInAt: Option.none(),
    appMetadata: {},
    userMetadata: { ...options.data },
    isAnonymous: true,
    bannedUntil: Option.none(),
    createdAt: options.now,
    updatedAt: options.now
  })

/**
 * The `email` or `phone` identity of a user who signed up with it: the provider's subject is
 * the user's id, and its data holds the address and whether it is verified, with the sign-up's
 * `data` beside them, as Supabase Auth stores it. Its `last_sign_in_at` is its creation, as
 * Supabase Auth stamps every new identity, whether or not it signs anyone in yet.
 */
export const identity = (options: {
  readonly id: IdentityId
  readonly user: User
  readonly provider: Provider
  readonly data: Readonly<Record<string, unknown>>
  readonly now: Date
}): Identity => {
  const { user, now } = options
  const claims: Record<string, unknown> = {
    sub: user.id,
    ...(options.provider === "email"
      ? { email: Option.getOrElse(user.email, () => "") }
      : { phone: Option.getOrElse(user.phone, () => "") }),
    email_verified: Option.isSome(user.emailConfirmedAt),
    phone_verified: Option.isSome(user.phoneConfirmedAt)
  }
  return new Identity({
    id: options.id,
    userId: user.id,
    provider: options.provider,
    providerId: user.id,
    identityData: withData(claims, options.data),
    email: options.provider === "email" ? user.email : Option.none(),
    createdAt: now,
    updatedAt: now,
    lastSignInAt: Option.some(now)
  })
}

export const newUserId = (uuid: string) => UserId.make(uuid)
export const newIdentityId = (uuid: string) => IdentityId.make(uuid)

/**
 * A new, unconfirmed user of an email address with its `email` identity, their ids minted: the
 * user that a passwordless sign-in (`madeBy: "signUp"`), an invitation or a generated link
 * (`"admin"`: the `data` is the user's metadata and not the identity's, as there) makes.
 * `stamps` sets what the occasion records (`invitedAt`, `confirmationSentAt`).
 */
export const ofEmail = (options: {
  readonly email: Email
  readonly aud: string
  readonly data: Readonly<Record<string, unknown>>
  readonly madeBy: "signUp" | "admin"
  readonly stamps: Partial<Pick<User, "invitedAt" | "confirmationSentAt">>
  readonly now: Date
}) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const made = user({
      id: newUserId(yield* secrets.uuid),
      aud: options.aud,
      contact: { _tag: "email", email: options.email },
      data: options.data,
      confirmed: false,
      madeBy: options.madeBy,
      now: options.now
    })
    const stamped = new User({ ...made, ...options.stamps }, true)
    return {
      user: stamped,
      identity: identity({
        id: newIdentityId(yield* secrets.uuid),
        user: stamped,
        provider: "email",
        data: options.madeBy === "signUp" ? options.data : {},
        now: options.now
      })
    }
  })
