import * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"
import { SecretHash, UserId } from "../Ids.js"
import * as Time from "../Time.js"
import { Timestamp } from "../Timestamp.js"
import * as FlowState from "./FlowState.js"

/**
 * A sign-in at an external provider on its way (`GET /authorize` → the provider → `/callback`):
 * what the request asked for, found again by the `state` we sent the provider, of which only
 * the digest is kept. The provider-side nonce and PKCE verifier are derived from that state
 * (UpstreamSecrets), so no secret of the round trip is at rest.
 */
export class ExternalLogin extends Schema.Class<ExternalLogin>("ExternalLogin")({
  stateHash: SecretHash,
  /** The provider key (`github`, `keycloak`, …). */
  provider: Schema.String,
  /** Where the flow ends: `redirect_to`, already checked against the allow list. */
  redirectTo: Schema.String,
  /** The application's PKCE challenge (supabase-js `flowType: "pkce"`); none: implicit flow. */
  codeChallenge: Schema.OptionFromNullOr(Schema.String),
  codeChallengeMethod: Schema.OptionFromNullOr(FlowState.ChallengeMethod),
  /** Manual linking (`GET /user/identities/authorize`): the signed-in user the identity joins. */
  linkingUserId: Schema.OptionFromNullOr(UserId),
  /** What an OAuth 1.0a provider needs back at the callback (its request token's secret, sealed). */
  handshake: Schema.OptionFromNullOr(Schema.String),
  createdAt: Timestamp,
  expiresAt: Timestamp
}) {}

/**
 * How long a person may take at the provider's login page: ten minutes, or the flow states'
 * lifetime (`EXTERNAL_FLOW_STATE_EXPIRY_DURATION`, which Supabase Auth gives its OAuth state)
 * when that is longer.
 */
export const lifetime = (flowStateLifetime: Duration.Duration): Duration.Duration =>
  Duration.max(Duration.minutes(10), FlowState.lifetime(flowStateLifetime))

export const expiryFor = (createdAt: Date, flowStateLifetime: Duration.Duration): Date =>
  Time.plus(createdAt, Duration.toMillis(lifetime(flowStateLifetime)))
