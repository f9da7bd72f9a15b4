import * as Duration from "effect/Duration"

/**
 * Fixed-window rate limiting: time is cut into windows of the limit's length and each key may
 * make `max` requests per window. Cheap to keep in a shared database (one row per key), which
 * matters more here than the burst a sliding window would smooth out.
 */
export const startOf = (now: Date, window: Duration.Duration): number => {
  const length = Duration.toMillis(window)
  return Math.floor(now.getTime() / length) * length
}

export const verdict = (
  count: number,
  windowStart: number,
  limit: { readonly max: number; readonly window: Duration.Duration },
  now: Date
) =>
  count <= limit.max
    ? { allowed: true, retryAfter: Duration.zero }
    : {
        allowed: false,
        retryAfter: Duration.millis(windowStart + Duration.toMillis(limit.window) - now.getTime())
      }
