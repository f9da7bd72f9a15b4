import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { constantTimeEqual } from "../ConstantTime.js"
import { SecretHash, UserId } from "../Ids.js"
import * as Pkce from "../Pkce.js"
import * as Time from "../Time.js"
import { Timestamp } from "../Timestamp.js"

export const FlowStateId = Schema.UUID.pipe(Schema.brand("FlowStateId"))
export type FlowStateId = typeof FlowStateId.Type

/** Supabase Auth reads the method case-insensitively and stores it lower-cased. */
export const ChallengeMethod = Schema.Literal("s256", "plain")
export type ChallengeMethod = typeof ChallengeMethod.Type

/**
 * A PKCE flow of a mailed link (supabase-js `flowType: "pkce"`): the challenge of the request
 * that sent the mail; once the link is followed, the digest of the authorization code the
 * application exchanges, with the verifier, for the session.
 */
export class FlowState extends Schema.Class<FlowState>("FlowState")({
  id: FlowStateId,
  userId: UserId,
  codeChallenge: Schema.String,
  codeChallengeMethod: ChallengeMethod,
  /** The `amr` method of the session it ends in: `otp`, `magiclink`, `recovery`, `invite`. */
  authenticationMethod: Schema.String,
  authCodeHash: Schema.OptionFromNullOr(SecretHash),
  authCodeIssuedAt: Schema.OptionFromNullOr(Timestamp),
  /**
   * A provider sign-in's own tokens (`provider_token`, `provider_refresh_token`), for the
   * exchange's answer, sealed under the authorization code; none for mailed flows.
   */
  providerTokens: Schema.OptionFromNullOr(Schema.String),
  createdAt: Timestamp
}) {}

/** The shortest time an authorization code may wait for its exchange: Supabase Auth's 300 s. */
export const minimumLifetime = Duration.seconds(300)

/**
 * How long an authorization code may wait for its exchange: `EXTERNAL_FLOW_STATE_EXPIRY_DURATION`,
 * raised to the minimum as Supabase Auth raises it.
 */
export const lifetime = (configured: Duration.Duration): Duration.Duration =>
  Duration.max(configured, minimumLifetime)

/**
 * Whether the code is past its lifetime (`configured`, as `lifetime` reads it) at `now`, counted
 * from when the link was followed: the mail itself may wait a day (`MAILER_OTP_EXP`) before it
 * is opened.
 */
export const isExpired = (flow: FlowState, now: Date, configured: Duration.Duration): boolean =>
  Option.match(flow.authCodeIssuedAt, {
    onNone: () => true,
    onSome: (issued) => now.getTime() > Time.plus(issued, Duration.toMillis(lifetime(configured))).getTime()
  })

/** Whether `verifier` answers the flow's challenge (RFC 7636 §4.6; `plain` compared as is). */
export const answers = (flow: FlowState, verifier: string): Effect.Effect<boolean> =>
  flow.codeChallengeMethod === "plain"
    ? Effect.succeed(constantTimeEqual(verifier, flow.codeChallenge))
    : Effect.map(Pkce.challengeOf(verifier), (computed) => constantTimeEqual(computed, flow.codeChallenge))

/** The method as a request gives it (`S256`, `s256`, `plain`), if it is one. */
export const parseMethod = (method: string): Option.Option<ChallengeMethod> => {
  const lower = method.toLowerCase()
  return lower === "s256" || lower === "plain" ? Option.some(lower) : Option.none()
}
