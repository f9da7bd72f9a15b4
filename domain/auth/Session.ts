import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { UserId } from "../Ids.js"
import * as Time from "../Time.js"
import { Timestamp } from "../Timestamp.js"
import { AmrEntry } from "./AccessTokenClaims.js"

/** A session of the auth service; access tokens carry it as `session_id`. */
export const SessionId = Schema.UUID.pipe(Schema.brand("SessionId"))
export type SessionId = typeof SessionId.Type

/** Authenticator assurance level, as Supabase Auth writes it in the `aal` claim. */
export const Aal = Schema.Literal("aal1", "aal2", "aal3")
export type Aal = typeof Aal.Type

const optional = <A, I, R>(schema: Schema.Schema<A, I, R>) => Schema.OptionFromNullishOr(schema, null)

/**
 * A sign-in: Supabase Auth's session row. Every refresh token of a session descends from its
 * first, and a rotation retires the presented token and mints its only child, so a session has
 * exactly one live refresh token: `generation` is its generation (0 for the first, +1 per
 * rotation), `refreshedAt` when it was minted (none until the first refresh). `revokedAt` is set
 * by a logout or by a detected reuse: the session has ended, and neither its access tokens nor
 * its refresh tokens are honoured again. How long a session may last is `Limits`' to say.
 */
export class Session extends Schema.Class<Session>("Session")({
  id: SessionId,
  userId: UserId,
  aal: Aal,
  factorId: optional(Schema.UUID),
  userAgent: optional(Schema.String),
  ip: optional(Schema.String),
  tag: optional(Schema.String),
  /**
   * How the user signed in (`password`, `anonymous`, …, with when): every access token of the
   * session carries it as `amr`, refreshed ones included, as Supabase Auth's `mfa_amr_claims`.
   */
  amr: Schema.Array(AmrEntry),
  generation: Schema.Int,
  refreshedAt: optional(Timestamp),
  revokedAt: optional(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

/** What the caller knows of a sign-in when it starts a session. */
export type Start = Pick<Session, "id" | "userId" | "aal" | "factorId" | "userAgent" | "ip" | "tag" | "amr">

/** A new session whose first refresh token (generation 0) is live. */
export const start = (fields: Start, now: Date): Session =>
  new Session({
    ...fields,
    generation: 0,
    refreshedAt: Option.none(),
    revokedAt: Option.none(),
    createdAt: now,
    updatedAt: now
  })

/**
 * How a session's refresh tokens rotate: Supabase Auth's `SECURITY_REFRESH_TOKEN_ROTATION_ENABLED`
 * and `SECURITY_REFRESH_TOKEN_REUSE_INTERVAL`, as `RefreshPolicy.authPolicy` states them.
 */
export interface RefreshPolicy {
  /** A retired token presented outside the reuse interval ends the session. */
  readonly reuseDetection: boolean
  /**
   * For this long after a rotation, the token just retired yields the live child again (a
   * client whose tabs refresh at once); zero: never.
   */
  readonly reuseInterval: Duration.Duration
}

/** What the presentation of one of a session's refresh tokens comes to. */
export type Presented = Data.TaggedEnum<{
  /** The live token: it retires and its child, of `generation`, becomes the live one. */
  Rotate: { readonly generation: number }
  /** The live token's parent inside the reuse interval: the live child is handed out again. */
  Reissue: {}
  /** A retired token outside the interval, with reuse detection: the session ends. */
  ReuseDetected: {}
  /** A retired token outside the interval, without reuse detection: refused, nothing else. */
  AlreadyUsed: {}
  /** The session has ended (logout, a reuse detected earlier): every token of it is refused. */
  Ended: {}
}>
export const Presented = Data.taggedEnum<Presented>()

/** Whether the policy keeps a retired token's child, to hand it out again inside the interval. */
export const keepsChild = (policy: RefreshPolicy): boolean =>
  Duration.greaterThan(policy.reuseInterval, Duration.zero)

/**
 * When the live token was minted: its rotation, or the sign-in for the first token. Also when
 * the session was last used, as an inactivity timeout counts (Supabase Auth's `LastRefreshedAt`).
 */
export const lastUsed = (session: Session): Date =>
  Option.getOrElse(session.refreshedAt, () => session.createdAt)

/**
 * How long a session may last, Supabase Auth's `SESSIONS_TIMEBOX` (from the sign-in),
 * `SESSIONS_INACTIVITY_TIMEOUT` (from its last refresh) and `SESSIONS_ALLOW_LOW_AAL` (from the
 * sign-in, while the session is below the highest level its user can reach); none: no such
 * limit. Past one, the session's refresh tokens are refused (`validity`). And
 * `SESSIONS_SINGLE_PER_USER`: a session is refused once another of its user's was used after
 * it (`isSuperseded`).
 */
export interface Limits {
  readonly timebox: Option.Option<Duration.Duration>
  readonly inactivityTimeout: Option.Option<Duration.Duration>
  readonly allowLowAal: Option.Option<Duration.Duration>
  readonly singlePerUser: boolean
}

/** Sessions that last until they end: Supabase Auth's default. */
export const unlimited: Limits = {
  timebox: Option.none(),
  inactivityTimeout: Option.none(),
  allowLowAal: Option.none(),
  singlePerUser: false
}

/** Which limit a session is past: one of its own (`validity`), or a newer sign-in (`isSuperseded`). */
export const Expiry = Schema.Literal("past_timebox", "inactive", "low_aal", "superseded")
export type Expiry = typeof Expiry.Type

/** What `Limits` say of a session at some moment, as Supabase Auth's `CheckValidity` orders them. */
export type Validity = "valid" | Exclude<Expiry, "superseded">

/**
 * A session's own limits at `now`, as instants: a session signed in before `signedInSince` is
 * past its timebox, one last used before `usedSince` is inactive, one below its user's highest
 * level signed in before `lowAalSince` is past its low-AAL allowance; none: no such limit.
 * Storage checks them as the rotation's condition (`SessionStore.rotate`).
 */
export interface Cutoffs {
  readonly signedInSince: Option.Option<Date>
  readonly usedSince: Option.Option<Date>
  readonly lowAalSince: Option.Option<Date>
}

/** No cutoff: what every session meets without limits. */
export const noCutoffs: Cutoffs = {
  signedInSince: Option.none(),
  usedSince: Option.none(),
  lowAalSince: Option.none()
}

/** The cutoffs of `limits` at `now`. */
export const cutoffs = (limits: Limits, now: Date): Cutoffs => ({
  signedInSince: Option.map(limits.timebox, (timebox) => Time.minus(now, timebox)),
  usedSince: Option.map(limits.inactivityTimeout, (timeout) => Time.minus(now, timeout)),
  lowAalSince: Option.map(limits.allowLowAal, (allowance) => Time.minus(now, allowance))
})

const aalRank: Readonly<Record<Aal, number>> = { aal1: 1, aal2: 2, aal3: 3 }

/** Whether the session is below `highest`, the level its user can reach (`Factor.highestPossibleAal`). */
const isLowAal = (session: Session, highest: Aal): boolean => aalRank[session.aal] < aalRank[highest]

const isBefore = (date: Date, cutoff: Option.Option<Date>): boolean =>
  Option.exists(cutoff, (since) => !Time.isAtOrAfter(date, since))

/**
 * Which of the session's own limits it is past, in Supabase Auth's `CheckValidity` order, its
 * user able to reach `highest`; `valid` when none.
 */
const judged = (session: Session, limitsAt: Cutoffs, highest: Aal): Validity => {
  if (isBefore(session.createdAt, limitsAt.signedInSince)) return "past_timebox"
  if (isBefore(lastUsed(session), limitsAt.usedSince)) return "inactive"
  if (isLowAal(session, highest) && isBefore(session.createdAt, limitsAt.lowAalSince)) return "low_aal"
  return "valid"
}

/** Whether the session, its user able to reach `highest`, is within `limitsAt`. */
export const meets = (session: Session, limitsAt: Cutoffs, highest: Aal): boolean =>
  judged(session, limitsAt, highest) === "valid"

/**
 * Whether every limit set is one of `Cutoffs`, so that the live token can rotate in storage's
 * shared statement on the session and its user's factors alone; one session per user needs the
 * user's other sessions.
 */
export const decidedByCutoffs = (limits: Limits): boolean => !limits.singlePerUser

/** The session at `now` under `limits`, its user able to reach `highest`. */
export const validity = (limits: Limits, session: Session, highest: Aal, now: Date): Validity =>
  judged(session, cutoffs(limits, now), highest)

/**
 * Under `SESSIONS_SINGLE_PER_USER`, whether another live session of the user (`others` may hold
 * the session itself), within its own limits at `now`, was used later than this one: a newer
 * sign-in or refresh, which ends this one's refreshes, as in Supabase Auth. (Its session tags,
 * `SESSIONS_TAGS`, which would keep sessions of different tags apart, are on no session there.)
 */
export const isSuperseded = (
  limits: Limits,
  session: Session,
  others: ReadonlyArray<Session>,
  highest: Aal,
  now: Date
): boolean =>
  limits.singlePerUser &&
  others.some(
    (other) =>
      other.id !== session.id &&
      Option.isNone(other.revokedAt) &&
      validity(limits, other, highest, now) === "valid" &&
      lastUsed(other).getTime() > lastUsed(session).getTime()
  )

/**
 * How long an access token issued at `now` lives, `JWT_EXP` being `lifetime`: a session below
 * `highest` under `SESSIONS_ALLOW_LOW_AAL` hands out none that outlives that allowance, as in
 * Supabase Auth.
 */
export const accessLifetime = (
  limits: Limits,
  session: Session,
  highest: Aal,
  now: Date,
  lifetime: Duration.Duration
): Duration.Duration => {
  if (Option.isNone(limits.allowLowAal) || !isLowAal(session, highest)) return lifetime
  const left = Time.plus(session.createdAt, limits.allowLowAal.value).getTime() - now.getTime()
  return Duration.min(lifetime, Duration.millis(Math.max(0, left)))
}

/** The refresh rule: the session's token of `generation` presented at `now`. */
export const present = (
  policy: RefreshPolicy,
  session: Session,
  generation: number,
  now: Date
): Presented => {
  if (Option.isSome(session.revokedAt)) return Presented.Ended()
  if (generation === session.generation) return Presented.Rotate({ generation: session.generation + 1 })
  if (
    generation === session.generation - 1 &&
    keepsChild(policy) &&
    !Time.isAtOrAfter(now, Time.plus(lastUsed(session), policy.reuseInterval))
  ) {
    return Presented.Reissue()
  }
  return policy.reuseDetection ? Presented.ReuseDetected() : Presented.AlreadyUsed()
}

/**
 * The session once its live token rotated at `now`. A session already valid with new counters
 * and times: the class is not asked to validate it again on every refresh.
 */
export const rotate = (session: Session, now: Date): Session =>
  new Session(
    { ...session, generation: session.generation + 1, refreshedAt: Option.some(now), updatedAt: now },
    true
  )

/** Logout or a detected reuse ends the session; ending an ended session changes nothing. */
export const revoke = (session: Session, now: Date): Session =>
  Option.isSome(session.revokedAt)
    ? session
    : new Session({ ...session, revokedAt: Option.some(now), updatedAt: now }, true)

/** The session after a presentation's outcome was carried out at `now`. */
export const after = (session: Session, presented: Presented, now: Date): Session =>
  Presented.$match(presented, {
    Rotate: () => rotate(session, now),
    ReuseDetected: () => revoke(session, now),
    Reissue: () => session,
    AlreadyUsed: () => session,
    Ended: () => session
  })
