import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ClientId, FamilyId, GrantId, UserId } from "./Ids.js"
import * as Time from "./Time.js"

/**
 * A refresh-token family: the chain of refresh tokens descended from one login. Each rotation
 * retires the presented token and mints its only child, so a family has exactly one live token,
 * identified by its generation (0 for the first token, +1 per rotation).
 *
 * One policy serves both services, parameterised (see `Policy`); each service states its own
 * parameters (`oauth/RefreshPolicy.ts`, `auth/RefreshPolicy.ts`).
 */
export class Family extends Schema.Class<Family>("RefreshTokenFamily")({
  id: FamilyId,
  userId: UserId,
  /** The client the family is bound to (oauth); none for the auth service. */
  clientId: Schema.OptionFromNullOr(ClientId),
  /** The authorization grant the family came from, so a replayed code can revoke it. */
  grantId: Schema.OptionFromNullOr(GrantId),
  scope: Schema.OptionFromNullOr(Schema.String),
  resource: Schema.OptionFromNullOr(Schema.String),
  /** Generation of the one live token. */
  generation: Schema.Int,
  /** When the live token was minted, i.e. when its parent was used. */
  rotatedAt: Schema.DateFromSelf,
  /** Sliding expiry; none when the policy has no lifetime. */
  expiresAt: Schema.OptionFromNullOr(Schema.DateFromSelf),
  revokedAt: Schema.OptionFromNullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf
}) {}

export interface Policy {
  /** On reuse of a retired token, revoke the whole family (every descendant). */
  readonly reuseDetection: boolean
  /** Within this time after a rotation, the immediately previous token yields the live child again. */
  readonly reuseInterval: Duration.Duration
  /** Sliding lifetime, reset on every rotation. */
  readonly slidingLifetime: Option.Option<Duration.Duration>
  /** The presenting client must be the one the family was issued to. */
  readonly bindsClient: boolean
}

/** What storage knows about the presented token, plus who presents it. */
export interface Presentation {
  readonly generation: number
  readonly clientId: Option.Option<ClientId>
}

export type Decision = Data.TaggedEnum<{
  /** Retire the presented (live) token and mint its child. */
  Rotate: { readonly generation: number; readonly expiresAt: Option.Option<Date> }
  /** The previous token came back inside the reuse interval: hand out the live child again. */
  Reissue: { readonly generation: number }
  /** A retired token came back: revoke the whole family. */
  ReuseDetected: {}
  /** A retired token came back, but the policy does not revoke on reuse. */
  AlreadyUsed: {}
  Expired: {}
  Revoked: {}
  WrongClient: {}
}>
export const Decision = Data.taggedEnum<Decision>()

/** The first token of a family, minted at a code exchange or a sign-in. */
export const start = (
  fields: Pick<Family, "id" | "userId" | "clientId" | "grantId" | "scope" | "resource">,
  policy: Policy,
  now: Date
): Family =>
  new Family({
    ...fields,
    generation: 0,
    rotatedAt: now,
    expiresAt: Option.map(policy.slidingLifetime, (lifetime) => Time.plus(now, lifetime)),
    revokedAt: Option.none(),
    createdAt: now
  })

export const isExpired = (family: Family, now: Date): boolean =>
  Option.match(family.expiresAt, {
    onNone: () => false,
    onSome: (expiresAt) => Time.isAtOrAfter(now, expiresAt)
  })

/** Is the presented token the live one of a family that can still rotate? */
export const isLive = (family: Family, generation: number, now: Date): boolean =>
  Option.isNone(family.revokedAt) && !isExpired(family, now) && generation === family.generation

const insideReuseInterval = (family: Family, policy: Policy, now: Date): boolean =>
  Duration.greaterThan(policy.reuseInterval, Duration.zero) &&
  now.getTime() < Time.plus(family.rotatedAt, policy.reuseInterval).getTime()

export const decide = (policy: Policy, family: Family, presented: Presentation, now: Date): Decision => {
  if (Option.isSome(family.revokedAt)) return Decision.Revoked()
  if (
    policy.bindsClient &&
    !Option.getEquivalence<string>((a, b) => a === b)(family.clientId, presented.clientId)
  ) {
    return Decision.WrongClient()
  }
  if (isExpired(family, now)) return Decision.Expired()
  if (presented.generation === family.generation) {
    return Decision.Rotate({
      generation: family.generation + 1,
      expiresAt: Option.map(policy.slidingLifetime, (lifetime) => Time.plus(now, lifetime))
    })
  }
  if (presented.generation === family.generation - 1 && insideReuseInterval(family, policy, now)) {
    return Decision.Reissue({ generation: family.generation })
  }
  return policy.reuseDetection ? Decision.ReuseDetected() : Decision.AlreadyUsed()
}

/** The family after a decision has been carried out. */
export const apply = (family: Family, decision: Decision, now: Date): Family =>
  Decision.$match(decision, {
    Rotate: ({ expiresAt, generation }) => new Family({ ...family, generation, rotatedAt: now, expiresAt }),
    ReuseDetected: () => new Family({ ...family, revokedAt: Option.some(now) }),
    Reissue: () => family,
    AlreadyUsed: () => family,
    Expired: () => family,
    Revoked: () => family,
    WrongClient: () => family
  })

/** A revoked or expired family can never yield a token again. */
export const isDead = (family: Family, now: Date): boolean =>
  Option.isSome(family.revokedAt) || isExpired(family, now)

/** Revocation by the client (RFC 7009), by logout, or by a replayed authorization code. */
export const revoke = (family: Family, now: Date): Family =>
  Option.isSome(family.revokedAt) ? family : new Family({ ...family, revokedAt: Option.some(now) })
