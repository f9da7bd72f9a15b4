import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Factor } from "../../../domain/auth/Factor.js"
import type { Session, SessionId } from "../../../domain/auth/Session.js"
import type { Identity } from "../../../domain/Identity.js"
import { type IdentityId, UserId } from "../../../domain/Ids.js"
import type { Email, Phone, User } from "../../../domain/User.js"

/** Another user (not an SSO one) already has this email address: `email_exists`. */
export class EmailExists extends Schema.TaggedError<EmailExists>()("EmailExists", {
  email: Schema.String
}) {}

/** Another user already has this phone number: `phone_exists`. */
export class PhoneExists extends Schema.TaggedError<PhoneExists>()("PhoneExists", {
  phone: Schema.String
}) {}

/** This account at this provider is already linked to a user: `identity_already_exists`. */
export class IdentityExists extends Schema.TaggedError<IdentityExists>()("IdentityExists", {
  provider: Schema.String,
  providerId: Schema.String
}) {}

/** No such user, or one that was soft-deleted: `user_not_found`. */
export class UserNotFound extends Schema.TaggedError<UserNotFound>()("UserNotFound", {
  userId: UserId
}) {}

/** The fields an update may change; `lastSignInAt` moves only with `recordSignIn`. */
export type UserPatch = Partial<
  Pick<
    User,
    | "aud"
    | "role"
    | "email"
    | "phone"
    | "emailConfirmedAt"
    | "phoneConfirmedAt"
    | "confirmationSentAt"
    | "invitedAt"
    | "appMetadata"
    | "userMetadata"
    | "bannedUntil"
    | "isAnonymous"
    | "emailChange"
    | "emailChangeSentAt"
    | "emailChangeConfirmStatus"
    | "phoneChange"
    | "phoneChangeSentAt"
    | "recoverySentAt"
    | "reauthenticationSentAt"
  >
>

/** A pending change of address or number (`User.emailChange`, `phoneChange`) confirmed once more. */
export interface ChangeConfirmation {
  readonly userId: UserId
  readonly field: "email" | "phone"
  /** Confirmations the change needs in all: both addresses for a secure email change, else one. */
  readonly needed: 1 | 2
  /**
   * The identity of the provider (`email`, `phone`) that carries the new value: its
   * `identityData` is merged into the user's identity of that provider, or it is added when
   * the user has none.
   */
  readonly identity: Identity
  readonly now: Date
}

/** What a confirmation came to. */
export type ChangeOutcome =
  /** No change of that field is pending (confirmed already, or never asked for). */
  | { readonly _tag: "NothingPending" }
  /** Counted; the other address still has to confirm. */
  | { readonly _tag: "Waiting" }
  /** The new value is the user's, confirmed; `previous` is what it replaced. */
  | { readonly _tag: "Changed"; readonly user: User; readonly previous: Option.Option<string> }

/** Supabase Auth's admin list: one audience, by `created_at` (newest first by default), paged. */
export interface PageRequest {
  readonly aud: string
  /** 1-based, as `page` in the admin API. */
  readonly page: number
  readonly perPage: number
  readonly order: "asc" | "desc"
  /**
   * `filter` of the admin API, `""` for none: the users whose email or `user_metadata.full_name`
   * (as text: a number's digits too) contains it, case ignored, every character taken as itself
   * (`%` and `_` included), as Supabase Auth's `FindUsersInAudience` searches those two columns.
   */
  readonly filter: string
}

export interface Page {
  readonly users: ReadonlyArray<User>
  /** Every user of the audience the filter lets through, on all pages: `X-Total-Count`. */
  readonly total: number
}

/** A user with their identities, oldest first. */
export interface WithIdentities {
  readonly user: User
  readonly identities: ReadonlyArray<Identity>
}

/**
 * A user with their identities and their factors (both oldest first): the user as Supabase
 * Auth's answers show them (GET /user, the token answers, the admin user), factors included.
 */
export interface Account extends WithIdentities {
  readonly factors: ReadonlyArray<Factor>
}

/** A user with their identities and factors, and the session an access token of theirs names. */
export interface SignedIn extends Account {
  /** The session of the id asked for, ended or not; none when none was asked for or it is unknown. */
  readonly session: Option.Option<Session>
}

/**
 * The auth service's users with their identities and password hashes. Soft-deleted users are
 * never returned nor changed: for every method they no longer exist, but for the admin API's
 * reads (`findAccount`, `list`, which show them with `deletedAt`, as Supabase Auth does) and
 * its deletes.
 */
export class UserRepository extends Context.Tag("latchkey/auth/UserRepository")<
  UserRepository,
  {
    /**
     * Stores a new user with its identities (none for an anonymous user, one otherwise), and its
     * password hash if it has one, all or nothing. Of concurrent inserts with one email (or
     * phone) exactly one succeeds.
     */
    readonly insert: (
      user: User,
      identities: ReadonlyArray<Identity>,
      passwordHash: Option.Option<string>
    ) => Effect.Effect<void, EmailExists | PhoneExists | IdentityExists>
    /** Links one more identity to a live user (an anonymous user adding an email, say). */
    readonly addIdentity: (identity: Identity) => Effect.Effect<void, UserNotFound | IdentityExists>
    readonly findById: (id: UserId) => Effect.Effect<Option.Option<User>>
    /** The non-SSO user with this address, as sign-in by email finds it. */
    readonly findByEmail: (email: Email) => Effect.Effect<Option.Option<User>>
    readonly findByPhone: (phone: Phone) => Effect.Effect<Option.Option<User>>
    /** The user whose email change to this address is pending. */
    readonly findByPendingEmail: (email: Email) => Effect.Effect<Option.Option<User>>
    /** The user whose phone change to this number is pending. */
    readonly findByPendingPhone: (phone: Phone) => Effect.Effect<Option.Option<User>>
    /** The identity of this account at this provider, with its live user. */
    readonly findByIdentity: (
      provider: string,
      providerId: string
    ) => Effect.Effect<Option.Option<{ readonly user: User; readonly identity: Identity }>>
    /**
     * Replaces an identity's data with what its provider said at a new sign-in, and stamps the
     * sign-in; the generated `email` follows the data. Nothing when it is gone.
     */
    readonly refreshIdentity: (
      id: IdentityId,
      data: Readonly<Record<string, unknown>>,
      now: Date
    ) => Effect.Effect<void>
    /**
     * Merges `data` into the data of the user's identity of `provider` (an `email` or `phone`
     * one); the generated `email` follows the data. False when the user has no such identity.
     */
    readonly mergeIdentityData: (
      userId: UserId,
      provider: string,
      data: Readonly<Record<string, unknown>>,
      now: Date
    ) => Effect.Effect<boolean>
    /** Deletes one of the user's identities; false when the user has no such identity. */
    readonly removeIdentity: (userId: UserId, identityId: IdentityId) => Effect.Effect<boolean>
    /** The user's identities, oldest first. */
    readonly identitiesOf: (id: UserId) => Effect.Effect<ReadonlyArray<Identity>>
    /**
     * The user with their identities (oldest first), read together: what every authenticated
     * request and every refresh answers with, so one read on the hot paths.
     */
    readonly findWithIdentities: (id: UserId) => Effect.Effect<Option.Option<WithIdentities>>
    /**
     * `findWithIdentities`, and the session of this id (whoever's it is) and the user's factors
     * read with them: what an access token names, in one read, as every authenticated request
     * reads it. None when the user is not found, whatever the session.
     */
    readonly findSignedIn: (
      id: UserId,
      session: Option.Option<SessionId>
    ) => Effect.Effect<Option.Option<SignedIn>>
    /**
     * The user, live or soft-deleted (`deletedAt`), with their identities and factors: what the
     * admin API shows of a user.
     */
    readonly findAccount: (id: UserId) => Effect.Effect<Option.Option<Account>>
    /** The PHC string of the user's password; none when the user has no password. */
    readonly findPasswordHash: (id: UserId) => Effect.Effect<Option.Option<string>>
    /**
     * Changes the given fields and stamps `updated_at`; returns the user as stored. A patch
     * made from the stored user (a merge into its metadata, say) is made under the user's lock,
     * so that a change landing between a read and this write is not lost.
     */
    readonly update: (
      id: UserId,
      patch: UserPatch | ((stored: User) => UserPatch),
      now: Date
    ) => Effect.Effect<User, UserNotFound | EmailExists | PhoneExists>
    /**
     * Confirms the user's address as Supabase Auth's sign-up verify does, in one step under the
     * user's lock: the user as `emailConfirmed` leaves them and, with `identities`, the user's
     * identities of that address marked `email_verified` in their data. The user as stored.
     */
    readonly confirmEmail: (
      id: UserId,
      options: { readonly identities: boolean },
      now: Date
    ) => Effect.Effect<User, UserNotFound>
    /**
     * Counts a confirmation of the pending change and, once it has all it needs, makes the new
     * value the user's (confirmed, the pending change cleared, the provider's identity carrying
     * it). One step under the user's lock: two confirmations arriving together both count.
     */
    readonly confirmChange: (
      confirmation: ChangeConfirmation
    ) => Effect.Effect<ChangeOutcome, UserNotFound | EmailExists | PhoneExists>
    /** Sets (some) or removes (none) the password hash. */
    readonly setPasswordHash: (
      id: UserId,
      hash: Option.Option<string>,
      now: Date
    ) => Effect.Effect<void, UserNotFound>
    /**
     * A password change in one write, as Supabase Auth's `UpdatePassword` makes it: the new hash,
     * and the user no longer says when a link or code went out (`confirmation_sent_at`,
     * `recovery_sent_at`, `email_change_sent_at`, `phone_change_sent_at`,
     * `reauthentication_sent_at`), since those links end with the change.
     */
    readonly changePassword: (id: UserId, hash: string, now: Date) => Effect.Effect<void, UserNotFound>
    /**
     * Stamps `last_sign_in_at` on the user and, when given, on the identity used, and returns
     * the user's identities as the stamp leaves them with the user's factors (what the
     * session's answer shows): one step, as every sign-in ends with it.
     */
    readonly recordSignIn: (
      id: UserId,
      identity: Option.Option<IdentityId>,
      now: Date
    ) => Effect.Effect<Omit<Account, "user">, UserNotFound>
    /**
     * Supabase Auth's soft delete: the row stays, with `deleted_at` set and what identifies the
     * person cleared (email, phone, password, metadata, identity data), so that the address,
     * the number and the upstream accounts are free for a new sign-up; the user's sessions are
     * revoked in the same transaction. A user soft-deleted already stays as they are.
     */
    readonly softDelete: (id: UserId, now: Date) => Effect.Effect<void, UserNotFound>
    /** Deletes the user, live or soft-deleted, with its identities, sessions and refresh tokens. */
    readonly delete: (id: UserId) => Effect.Effect<void, UserNotFound>
    /**
     * Deletes at most `limit` anonymous users made before `createdBefore`, as `delete` does
     * (what is theirs goes with them), passing over users a request holds; how many went.
     */
    readonly reapAnonymous: (createdBefore: Date, limit: number) => Effect.Effect<number>
    /** One page of the audience's users, soft-deleted ones among them (`deletedAt`). */
    readonly list: (request: PageRequest) => Effect.Effect<Page>
  }
>() {}
