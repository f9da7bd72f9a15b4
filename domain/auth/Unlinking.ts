import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Identity } from "../Identity.js"
import { Email, nothingPending, User } from "../User.js"

const decodeEmail = Schema.decodeEither(Email)

const emailOf = (identity: Identity): Option.Option<string> => identity.email

const verified = (identity: Identity): boolean => identity.identityData.email_verified === true

/** The identity's address as the user's would be stored; none for none, or one that is no address. */
const addressOf = (identity: Identity): Option.Option<Email> =>
  Option.flatMap(emailOf(identity), (address) => Either.getRight(decodeEmail(address)))

/**
 * Whether a remaining identity carries the user's address, which then stays — no address
 * included, as Supabase Auth compares them: a user without one keeps none while an identity
 * without one (a phone's) remains.
 */
const keeps = (user: User, remaining: ReadonlyArray<Identity>) =>
  remaining.some(
    (identity) => Option.getOrElse(emailOf(identity), () => "") === Option.getOrElse(user.email, () => "")
  )

/**
 * The addresses that may replace the user's when `removed` is unlinked: those of the remaining
 * identities, when the user's address is not kept. Which of them other users have decides which
 * one takes over (`afterUnlink`'s `taken`).
 */
export const replacements = (
  user: User,
  removed: Identity,
  remaining: ReadonlyArray<Identity>
): ReadonlyArray<Email> =>
  removed.provider === "phone" || keeps(user, remaining)
    ? []
    : [...new Set(remaining.flatMap((identity) => Option.toArray(addressOf(identity))))]

/** What an unlinking comes to. */
export type Unlinking =
  | {
      readonly _tag: "Unlinked"
      /** The user as rewritten. */
      readonly user: User
      /**
       * Whether the address gave way to another identity's (or to none): whatever was sent to
       * the old one — links, codes, a pending change of address or number — no longer counts,
       * and the user's one-time tokens end with it, as Supabase Auth's `ClearAllPendingTokens`.
       */
      readonly addressReplaced: boolean
    }
  /**
   * The address must give way, but every remaining identity's address is another user's:
   * refused, as Supabase Auth refuses it (`email_conflict_identity_not_deletable`).
   */
  | { readonly _tag: "EmailConflict" }

/**
 * The user once `removed` is unlinked and `remaining` are left, as Supabase Auth rewrites it: a
 * removed phone identity takes the number with it; otherwise an address no remaining identity
 * carries gives way to the best one's that no other user has (`taken`: verified first, then
 * unverified, then none; oldest first), whose confirmation stays as it was only if its provider
 * verified it or `MAILER_AUTOCONFIRM` is on (else it is cleared and `email_verified` set false),
 * with nothing left pending (`addressReplaced`). The providers of
 * `app_metadata` are those of the remaining identities.
 */
export const afterUnlink = (
  user: User,
  removed: Identity,
  remaining: ReadonlyArray<Identity>,
  options: {
    readonly autoconfirm: boolean
    /** Addresses of remaining identities that other users have (`replacements` lists those to look up). */
    readonly taken: ReadonlySet<Email>
    readonly now: Date
  }
): Unlinking => {
  const { autoconfirm, taken, now } = options
  const providers = [...new Set(remaining.map((identity) => identity.provider))]
  const provider = user.appMetadata.provider === removed.provider ? providers[0] : user.appMetadata.provider
  const appMetadata = { ...user.appMetadata, providers, ...(provider === undefined ? {} : { provider }) }
  if (removed.provider === "phone") {
    return {
      _tag: "Unlinked",
      user: new User({
        ...user,
        phone: Option.none(),
        phoneConfirmedAt: Option.none(),
        appMetadata,
        updatedAt: now
      }),
      addressReplaced: false
    }
  }
  if (keeps(user, remaining)) {
    return {
      _tag: "Unlinked",
      user: new User({ ...user, appMetadata, updatedAt: now }),
      addressReplaced: false
    }
  }
  const rank = (identity: Identity) => (Option.isNone(emailOf(identity)) ? 2 : verified(identity) ? 0 : 1)
  const primary = [...remaining]
    .sort(
      (a, b) => rank(a) - rank(b) || a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id)
    )
    .find((identity) => !Option.exists(addressOf(identity), (address) => taken.has(address)))
  if (primary === undefined) return { _tag: "EmailConflict" }
  const email = emailOf(primary)
  const confirmed = Option.isSome(email) && (verified(primary) || autoconfirm)
  return {
    _tag: "Unlinked",
    user: new User({
      ...user,
      ...nothingPending,
      email: addressOf(primary),
      // A verified address keeps the confirmation the user had, none included: an address
      // another identity verified does not confirm an account that never was.
      emailConfirmedAt: confirmed ? user.emailConfirmedAt : Option.none(),
      userMetadata: confirmed ? user.userMetadata : { ...user.userMetadata, email_verified: false },
      appMetadata,
      updatedAt: now
    }),
    addressReplaced: true
  }
}
