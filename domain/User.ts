import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Ban from "./Ban.js"
import { UserId } from "./Ids.js"
import { Timestamp } from "./Timestamp.js"

// The WHATWG HTML `type=email` shape, which is also what Supabase Auth checks (badoux/checkmail):
// printable ASCII local part, dot-separated hostname labels of at most 63 characters.
const emailShape =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/

/**
 * An email address as stored: trimmed and lower-cased, so that lookups and the uniqueness of
 * `users.email` do not depend on how it was typed. The shape is checked before lower-casing:
 * otherwise a look-alike such as U+212A KELVIN SIGN would pass by turning into an ASCII `k`.
 */
export const Email = Schema.Trim.pipe(
  Schema.maxLength(255, { message: () => "An email address is too long" }),
  Schema.pattern(emailShape, { message: () => "Unable to validate email address: invalid format" }),
  Schema.compose(Schema.Lowercase),
  Schema.brand("Email")
)
export type Email = typeof Email.Type

// Supabase Auth's stored form: E.164's digits without the `+`, 2 to 15, the first not zero.
const e164Digits = /^[1-9][0-9]{1,14}$/

const invalidPhoneMessage = "Invalid phone number format (E.164 required)"

/**
 * A phone number as Supabase Auth stores it, returns it and puts it in tokens: the digits of its
 * E.164 form without the `+` (`15555550100`). A gateway that wants the `+` adds it when it sends.
 */
export const Phone = Schema.String.pipe(
  Schema.pattern(e164Digits, { message: () => invalidPhoneMessage }),
  Schema.brand("Phone")
)
export type Phone = typeof Phone.Type

/** What a client typed cannot be read as a phone number in international form. */
export class InvalidPhone extends Schema.TaggedError<InvalidPhone>()("InvalidPhone", {
  input: Schema.String,
  message: Schema.String
}) {}

/** The refusal of `input`, in Supabase Auth's words. */
export const invalidPhone = (input: string): InvalidPhone =>
  new InvalidPhone({ input, message: invalidPhoneMessage })

const isPhone = Schema.is(Phone)

/**
 * A number as a client (or `SMS_TEST_OTP`) wrote it, read as Supabase Auth reads it: one leading
 * `+` and every space dropped, then the digits of an E.164 number. Nothing more is checked: no
 * numbering plan decides which lengths a country has, so an application's existing users and
 * test numbers (`4152127777`, the fictional `555 01xx` range) keep working, and a number Supabase
 * Auth accepts is never refused here. Other punctuation (`-`, `(`) is refused, as there.
 */
export const parsePhone = (input: string): Either.Either<Phone, InvalidPhone> => {
  const digits = (input.startsWith("+") ? input.slice(1) : input).replaceAll(" ", "")
  return isPhone(digits) ? Either.right(digits) : Either.left(invalidPhone(input))
}

const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown })

// Absent, `null` and `undefined` all decode to none, and none encodes to `null`: a row's NULL
// column, a JSON `null` and an omitted JSON key (Supabase Auth omits empty timestamps) all work.
const optional = <A, I, R>(schema: Schema.Schema<A, I, R>) => Schema.OptionFromNullishOr(schema, null)

// A field only the auth service's users carry: may be left out when a user is made or read
// (the oauth service's upstream users never have one), none when it is.
const pending = <A, I, R>(schema: Schema.Schema<A, I, R>) =>
  Schema.optionalWith(schema, { as: "Option", nullable: true }).pipe(
    Schema.withConstructorDefault(() => Option.none<A>())
  )

/** A user of the auth service, with the fields of Supabase Auth's user object. */
export class User extends Schema.Class<User>("User")({
  id: UserId,
  aud: Schema.String,
  role: Schema.String,
  email: optional(Email),
  phone: optional(Phone),
  emailConfirmedAt: optional(Timestamp),
  phoneConfirmedAt: optional(Timestamp),
  confirmationSentAt: optional(Timestamp),
  invitedAt: optional(Timestamp),
  lastSignInAt: optional(Timestamp),
  appMetadata: Metadata,
  userMetadata: Metadata,
  isAnonymous: Schema.Boolean,
  bannedUntil: optional(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  /** The address an email change is waiting to be confirmed for (`new_email`). */
  emailChange: pending(Email),
  emailChangeSentAt: pending(Timestamp),
  /**
   * Confirmations the pending email change has had: with secure email change both the current
   * and the new address confirm, and the first of the two leaves this at 1.
   */
  emailChangeConfirmStatus: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  /** The number a phone change is waiting to be confirmed for (`new_phone`). */
  phoneChange: pending(Phone),
  phoneChangeSentAt: pending(Timestamp),
  /** When the last recovery or magic link went out (`recovery_sent_at`). */
  recoverySentAt: pending(Timestamp),
  /** When the last reauthentication nonce went out (`reauthentication_sent_at`). */
  reauthenticationSentAt: pending(Timestamp),
  /** When the user was soft-deleted (`deleted_at`): only the admin API's reads show such a user. */
  deletedAt: pending(Timestamp)
}) {}

/**
 * What Supabase Auth's `Confirm` writes when a user's address is confirmed: the time, and
 * `email_verified: true` merged into the user's metadata (where a sign-up put `false`), whatever
 * it holds besides.
 */
export const emailConfirmed = (
  userMetadata: User["userMetadata"],
  now: Date
): Pick<User, "emailConfirmedAt" | "userMetadata"> => ({
  emailConfirmedAt: Option.some(now),
  userMetadata: { ...userMetadata, email_verified: true }
})

/**
 * Nothing pending: no link or code on its way, no change of address or number asked — what
 * Supabase Auth's `ClearAllPendingTokens` leaves once a user's address is replaced by an
 * identity's (unlinking, or manual linking giving an address to a user without one), for the
 * caller to write as it is; the user's one-time tokens end with it.
 */
export const nothingPending = {
  confirmationSentAt: Option.none<Date>(),
  recoverySentAt: Option.none<Date>(),
  emailChange: Option.none<Email>(),
  emailChangeSentAt: Option.none<Date>(),
  emailChangeConfirmStatus: 0,
  phoneChange: Option.none<Phone>(),
  phoneChangeSentAt: Option.none<Date>(),
  reauthenticationSentAt: Option.none<Date>()
} satisfies Partial<User>

/** The user is banned: no sign-in, no token refresh, until `bannedUntil`. */
export class UserBanned extends Schema.TaggedError<UserBanned>()("UserBanned", {
  userId: UserId,
  bannedUntil: Timestamp,
  message: Schema.String
}) {}

/** Whether `user` may sign in or refresh a session at `now`. */
export const canSignIn = (user: User, now: Date): Either.Either<void, UserBanned> =>
  Option.match(
    Option.filter(user.bannedUntil, (until) => Ban.isBanned(Option.some(until), now)),
    {
      onNone: () => Either.void,
      onSome: (until) =>
        Either.left(new UserBanned({ userId: user.id, bannedUntil: until, message: "User is banned" }))
    }
  )
