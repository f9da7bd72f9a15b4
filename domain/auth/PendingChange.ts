import * as Option from "effect/Option"
import { emailConfirmed, User } from "../User.js"
import * as AppMetadata from "./AppMetadata.js"

/** Which of a user's contacts a change is for. */
export type Field = "email" | "phone"

/** What one more confirmation of a pending change does to the user. */
export type Decision =
  | { readonly _tag: "NothingPending" }
  /** Counted: the user as it stands with one more confirmation, the other still to come. */
  | { readonly _tag: "Waiting"; readonly user: User }
  /** Done: the user with the new value, and the value it replaced. */
  | { readonly _tag: "Changed"; readonly user: User; readonly previous: Option.Option<string> }

/**
 * `app_metadata` once the user signs in with `provider` as well: listed in `providers`; an
 * anonymous user's first provider becomes their `provider`.
 */
const withProvider = (user: User, provider: Field): User["appMetadata"] =>
  user.isAnonymous
    ? { ...user.appMetadata, provider, providers: [provider] }
    : AppMetadata.withProvider(user.appMetadata, provider)

/**
 * One more confirmation of the user's pending change of `field`, when it needs `needed` in all
 * (a secure email change: the current and the new address; anything else: the new one alone).
 * As in Supabase Auth: a changed address keeps the first confirmation time the user had (it is
 * set only when there was none), while a changed number is confirmed now.
 */
export const confirm = (user: User, field: Field, needed: 1 | 2, now: Date): Decision => {
  if (field === "email") {
    if (Option.isNone(user.emailChange)) return { _tag: "NothingPending" }
    const confirmations = user.emailChangeConfirmStatus + 1
    if (confirmations < needed) {
      return {
        _tag: "Waiting",
        user: new User({ ...user, emailChangeConfirmStatus: confirmations, updatedAt: now })
      }
    }
    return {
      _tag: "Changed",
      previous: user.email,
      user: new User({
        ...user,
        email: user.emailChange,
        // A first confirmation of an address, as Supabase Auth's `Confirm` marks one.
        ...(Option.isNone(user.emailConfirmedAt) ? emailConfirmed(user.userMetadata, now) : {}),
        emailChange: Option.none(),
        emailChangeConfirmStatus: 0,
        appMetadata: withProvider(user, "email"),
        isAnonymous: false,
        updatedAt: now
      })
    }
  }
  if (Option.isNone(user.phoneChange)) return { _tag: "NothingPending" }
  return {
    _tag: "Changed",
    previous: user.phone,
    user: new User({
      ...user,
      phone: user.phoneChange,
      phoneConfirmedAt: Option.some(now),
      phoneChange: Option.none(),
      appMetadata: withProvider(user, "phone"),
      isAnonymous: false,
      updatedAt: now
    })
  }
}
