import * as Duration from "effect/Duration"
import type { RefreshPolicy } from "./Session.js"

/**
 * Supabase Auth's semantics: reuse detection follows `SECURITY_REFRESH_TOKEN_ROTATION_ENABLED`,
 * and the reuse interval (`SECURITY_REFRESH_TOKEN_REUSE_INTERVAL`) applies only with it.
 */
export const authPolicy = (options: {
  readonly rotationEnabled: boolean
  readonly reuseInterval: Duration.Duration
}): RefreshPolicy => ({
  reuseDetection: options.rotationEnabled,
  reuseInterval: options.rotationEnabled ? options.reuseInterval : Duration.zero
})
