import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import type { Policy } from "../RefreshTokenFamily.js"

/**
 * Supabase Auth's semantics: reuse detection follows `SECURITY_REFRESH_TOKEN_ROTATION_ENABLED`,
 * and the reuse interval (`SECURITY_REFRESH_TOKEN_REUSE_INTERVAL`) applies only with it. A
 * session's tokens have no lifetime of their own and are not bound to a client.
 */
export const authPolicy = (options: {
  readonly rotationEnabled: boolean
  readonly reuseInterval: Duration.Duration
}): Policy => ({
  reuseDetection: options.rotationEnabled,
  reuseInterval: options.rotationEnabled ? options.reuseInterval : Duration.zero,
  slidingLifetime: Option.none(),
  bindsClient: false
})
