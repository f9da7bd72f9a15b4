import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { FamilyId, UserId } from "../Ids.js"
import * as RefreshTokenFamily from "../RefreshTokenFamily.js"
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
 * A sign-in: Supabase Auth's session row, which is also the refresh-token family of the
 * sign-in (every refresh token of a session descends from its first). `generation` is that of
 * the one live refresh token; `refreshedAt` is when it was minted (none until the first
 * refresh); `revokedAt` is set by a logout or by a detected reuse, after which neither the
 * session's access tokens nor its refresh tokens are honoured.
 */
export class Session extends Schema.Class<Session>("Session")({
  id: SessionId,
  userId: UserId,
  aal: Aal,
  factorId: optional(Schema.UUID),
  notAfter: optional(Timestamp),
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
export type Start = Pick<
  Session,
  "id" | "userId" | "aal" | "factorId" | "notAfter" | "userAgent" | "ip" | "tag" | "amr"
>

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
 * The session seen as a refresh-token family, so that `RefreshTokenFamily.decide` rules on it.
 * A session's tokens are bound to no client and have no lifetime of their own (`not_after` is
 * the session's, checked by the use cases).
 */
export const family = (session: Session): RefreshTokenFamily.Family =>
  // Built from a session's own, valid fields on every refresh: not validated a second time.
  new RefreshTokenFamily.Family(
    {
      id: FamilyId.make(session.id),
      userId: session.userId,
      clientId: Option.none(),
      grantId: Option.none(),
      scope: Option.none(),
      resource: Option.none(),
      generation: session.generation,
      rotatedAt: Option.getOrElse(session.refreshedAt, () => session.createdAt),
      expiresAt: Option.none(),
      revokedAt: session.revokedAt,
      createdAt: session.createdAt
    },
    true
  )

/**
 * The session after a decision on its family was carried out at `now`. A session already valid
 * with new counters and times: the class is not asked to validate it again on every refresh.
 */
export const apply = (session: Session, decision: RefreshTokenFamily.Decision, now: Date): Session =>
  RefreshTokenFamily.Decision.$match(decision, {
    Rotate: ({ generation }) =>
      new Session({ ...session, generation, refreshedAt: Option.some(now), updatedAt: now }, true),
    ReuseDetected: () => revoke(session, now),
    Reissue: () => session,
    AlreadyUsed: () => session,
    Expired: () => session,
    Revoked: () => session,
    WrongClient: () => session
  })

/** Logout or a detected reuse; revoking a revoked session changes nothing. */
export const revoke = (session: Session, now: Date): Session =>
  Option.isSome(session.revokedAt)
    ? session
    : new Session({ ...session, revokedAt: Option.some(now), updatedAt: now }, true)

/** Whether the session's access tokens are still honoured at `now`: not revoked, not past `not_after`. */
export const isActive = (session: Session, now: Date): boolean =>
  Option.isNone(session.revokedAt) &&
  Option.match(session.notAfter, { onNone: () => true, onSome: (end) => now.getTime() < end.getTime() })

/**
 * A refresh token of the session presented at `now`: what the policy decides, and the session
 * once that is carried out. Both storage adapters carry the decision out the same way.
 */
export const present = (
  session: Session,
  generation: number,
  policy: RefreshTokenFamily.Policy,
  now: Date
): { readonly decision: RefreshTokenFamily.Decision; readonly after: Session } => {
  const decision = RefreshTokenFamily.decide(
    policy,
    family(session),
    { generation, clientId: Option.none() },
    now
  )
  return { decision, after: apply(session, decision, now) }
}
