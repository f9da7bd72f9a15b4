import * as Option from "effect/Option"
import type { Identity } from "../Identity.js"
import type { User } from "../User.js"

/**
 * What a sign-in through a provider does to the accounts, as Supabase Auth decides it
 * (automatic linking): the provider account's identity signs its user in; else a verified
 * address of a user links the new identity to that user; else a new user is made — with the
 * provider's address only when nobody has it.
 */
export type Decision =
  | { readonly _tag: "AccountExists"; readonly user: User; readonly identity: Identity }
  | { readonly _tag: "LinkAccount"; readonly user: User }
  | { readonly _tag: "CreateAccount"; readonly email: Option.Option<string> }

export interface Facts {
  /** The identity of this provider account, with its user, when one exists. */
  readonly existing: Option.Option<{ readonly user: User; readonly identity: Identity }>
  /** The address the provider gave, lower-cased. */
  readonly email: Option.Option<string>
  /** Whether the provider vouches for it (or `MAILER_AUTOCONFIRM` makes every address count). */
  readonly emailVerified: boolean
  /** The user whose address it is, if any. */
  readonly owner: Option.Option<User>
}

export const decide = (facts: Facts): Decision => {
  if (Option.isSome(facts.existing)) {
    return { _tag: "AccountExists", user: facts.existing.value.user, identity: facts.existing.value.identity }
  }
  // Only an address the provider verified may join an existing account: an unverified one may
  // be anybody's, and linking on it would hand that account to whoever typed it there.
  if (facts.emailVerified && Option.isSome(facts.owner))
    return { _tag: "LinkAccount", user: facts.owner.value }
  return { _tag: "CreateAccount", email: Option.isSome(facts.owner) ? Option.none() : facts.email }
}
