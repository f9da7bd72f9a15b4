import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { User } from "../User.js"

/** Authenticator assurance level: `aal2` once a second factor was verified in the session. */
export const Aal = Schema.Literal("aal1", "aal2")
export type Aal = typeof Aal.Type

/**
 * One authentication method of a session (RFC 8176's `amr`, as Supabase Auth shapes it): the
 * method (`password`, `otp`, `oauth`, `magiclink`, `totp`, `anonymous`, …), when it happened
 * (unix seconds), and for `oauth` or `sso/saml` the provider.
 */
export class AmrEntry extends Schema.Class<AmrEntry>("AmrEntry")({
  method: Schema.String,
  timestamp: Schema.Int,
  provider: Schema.optional(Schema.String)
}) {}

const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * The claims of an access token as the auth service issues them, named and ordered as Supabase
 * Auth writes them. `email` and `phone` are `""` when the user has none, never absent: clients
 * and Postgres policies read them as strings.
 */
export class AccessTokenClaims extends Schema.Class<AccessTokenClaims>("AccessTokenClaims")({
  iss: Schema.String,
  sub: Schema.UUID,
  /** The user's audience (`JWT_AUD`, default `authenticated`): one string, not an array. */
  aud: Schema.String,
  exp: Schema.Int,
  iat: Schema.Int,
  email: Schema.String,
  phone: Schema.String,
  appMetadata: Metadata.pipe(Schema.propertySignature, Schema.fromKey("app_metadata")),
  userMetadata: Metadata.pipe(Schema.propertySignature, Schema.fromKey("user_metadata")),
  role: Schema.String,
  aal: Aal,
  amr: Schema.Array(AmrEntry),
  sessionId: Schema.UUID.pipe(Schema.propertySignature, Schema.fromKey("session_id")),
  isAnonymous: Schema.Boolean.pipe(Schema.propertySignature, Schema.fromKey("is_anonymous"))
}) {}

/** What the session contributes to a token. */
export interface SessionFacts {
  readonly sessionId: string
  readonly aal: Aal
  readonly amr: ReadonlyArray<AmrEntry>
}

/** The claims of a token issued at `now` for `user` in a session, living `lifetime` (`JWT_EXP`). */
export const issue = (options: {
  readonly user: User
  readonly session: SessionFacts
  readonly issuer: string
  readonly now: Date
  readonly lifetime: Duration.DurationInput
}): AccessTokenClaims => {
  const { user, session } = options
  // JWT times are whole seconds; exp counts from the truncated iat, as Supabase Auth's does.
  const iat = Math.floor(options.now.getTime() / 1000)
  return new AccessTokenClaims({
    iss: options.issuer,
    sub: user.id,
    aud: user.aud,
    exp: iat + Math.floor(Duration.toSeconds(Duration.decode(options.lifetime))),
    iat,
    email: Option.getOrElse(user.email, () => ""),
    phone: Option.getOrElse(user.phone, () => ""),
    appMetadata: user.appMetadata,
    userMetadata: user.userMetadata,
    role: user.role,
    aal: session.aal,
    amr: session.amr,
    sessionId: session.sessionId,
    isAnonymous: user.isAnonymous
  })
}

/** The JSON payload of the claims, with their wire names. */
export const encode = Schema.encodeSync(AccessTokenClaims)

/**
 * Supabase Auth reads an `amr` of plain method names as well as of entries, and `null` as none.
 * A bare name counts here as an entry without a time (0).
 */
const AmrItem = Schema.Union(
  AmrEntry,
  Schema.transform(Schema.String, Schema.typeSchema(AmrEntry), {
    strict: true,
    decode: (method) => new AmrEntry({ method, timestamp: 0 }),
    encode: (entry) => entry.method
  })
)

const NumericDate = Schema.Number

/**
 * The claims of a verified token, as read back: lenient where Supabase Auth is, so that every
 * token it would accept decodes. A service token (`role: service_role`, as the anon and service
 * keys are) has no `sub`, no `session_id`, no `email`; `aud` may be a string or an array; any
 * other claim is kept out of this shape but stays in the raw payload.
 */
export class VerifiedClaims extends Schema.Class<VerifiedClaims>("VerifiedClaims")({
  iss: Schema.optional(Schema.String),
  sub: Schema.optional(Schema.String),
  aud: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  exp: Schema.optional(NumericDate),
  nbf: Schema.optional(NumericDate),
  iat: Schema.optional(NumericDate),
  email: Schema.optionalWith(Schema.String, { default: () => "", nullable: true }),
  phone: Schema.optionalWith(Schema.String, { default: () => "", nullable: true }),
  appMetadata: Schema.optional(Metadata).pipe(Schema.fromKey("app_metadata")),
  userMetadata: Schema.optional(Metadata).pipe(Schema.fromKey("user_metadata")),
  role: Schema.optionalWith(Schema.String, { default: () => "", nullable: true }),
  aal: Schema.optional(Schema.String),
  amr: Schema.optionalWith(Schema.Array(AmrItem), { default: () => [], nullable: true }),
  sessionId: Schema.optional(Schema.String).pipe(Schema.fromKey("session_id")),
  isAnonymous: Schema.optionalWith(Schema.Boolean, { default: () => false }).pipe(
    Schema.fromKey("is_anonymous")
  )
}) {}

export const decodeVerified = Schema.decodeUnknownEither(VerifiedClaims)
