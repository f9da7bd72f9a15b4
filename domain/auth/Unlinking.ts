import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Identity } from "../Identity.js"
import { Email, User } from "../User.js"

const decodeEmail = Schema.decodeEither(Email)

const emailOf = (identity: Identity): Option.Option<string> => identity.email

const verified = (identity: Identity): boolean => identity.identityData.email_verified === true

/**
 * The user once `removed` is unlinked and `remaining` are left, as Supabase Auth rewrites it: a
 * removed phone identity takes the number with it; otherwise an address no remaining identity
 * carries gives way to the best one's (verified first, then unverified, then none; oldest
 * first), confirmed only if its provider verified it or `MAILER_AUTOCONFIRM` is on. The
 * providers of `app_metadata` are those of the remaining identities.
 */
export const afterUnlink = (
  user: User,
  removed: Identity,
  remaining: ReadonlyArray<Identity>,
  autoconfirm: boolean,
  now: Date
): User => {
  const providers = [...new Set(remaining.map((identity) => identity.provider))]
  const provider = user.appMetadata.provider === removed.provider ? providers[0] : user.appMetadata.provider
  const appMetadata = { ...user.appMetadata, providers, ...(provider === undefined ? {} : { provider }) }
  if (removed.provider === "phone") {
    return new User({
      ...user,
      phone: Option.none(),
      phoneConfirmedAt: Option.none(),
      appMetadata,
      updatedAt: now
    })
  }
  const keeps = remaining.some(
    (identity) => Option.isSome(user.email) && Option.contains(emailOf(identity), user.email.value)
  )
  if (keeps) return new User({ ...user, appMetadata, updatedAt: now })
  const rank = (identity: Identity) => (Option.isNone(emailOf(identity)) ? 2 : verified(identity) ? 0 : 1)
  const primary = [...remaining].sort(
    (a, b) => rank(a) - rank(b) || a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id)
  )[0]
  const email = primary === undefined ? Option.none() : emailOf(primary)
  const confirmed = primary !== undefined && Option.isSome(email) && (verified(primary) || autoconfirm)
  return new User({
    ...user,
    email: Option.flatMap(email, (address) => Either.getRight(decodeEmail(address))),
    emailConfirmedAt: confirmed
      ? Option.orElse(user.emailConfirmedAt, () => Option.some(now))
      : Option.none(),
    userMetadata: confirmed ? user.userMetadata : { ...user.userMetadata, email_verified: false },
    appMetadata,
    updatedAt: now
  })
}
