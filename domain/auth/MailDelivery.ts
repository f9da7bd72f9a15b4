import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Time from "../Time.js"

/**
 * When to try a queued mail again after a failed attempt. Mail servers refuse for a while
 * (greylisting, a restart, a full queue) far more often than for good, so a transient failure
 * is retried with growing pauses — 5 s, 10 s, 20 s … up to 5 minutes — for two hours from when
 * the mail was queued; past that, or on a permanent refusal (an SMTP 5xx), the mail is given up.
 * Supabase Auth tries once, during the request, and answers 500 when the server fails.
 */
export const firstPause = Duration.seconds(5)
export const longestPause = Duration.minutes(5)
export const retryFor = Duration.hours(2)

export type Outcome = Data.TaggedEnum<{
  /** Try again at `at`. */
  Retry: { readonly at: Date }
  /** Stop: the server refused for good, or the mail has been failing for `retryFor`. */
  GiveUp: { readonly reason: "permanent" | "expired" }
}>
export const Outcome = Data.taggedEnum<Outcome>()

/** The pause after the `attempts`-th failed attempt (1 for the first). */
export const pauseAfter = (attempts: number): Duration.Duration => {
  const doubled = Duration.times(firstPause, 2 ** Math.max(0, Math.min(attempts - 1, 30)))
  return Duration.min(doubled, longestPause)
}

/**
 * A mail queued more than `retryFor` ago is not sent any more, even untried (queued while no mail
 * server was configured, say): its links and codes are stale, and its reader has moved on.
 */
export const isStale = (queuedAt: Date, now: Date): boolean =>
  now.getTime() > Time.plus(queuedAt, retryFor).getTime()

/** What follows a failed attempt, the `attempts`-th, of a mail queued at `queuedAt`. */
export const afterFailure = (
  failure: { readonly permanent: boolean },
  attempts: number,
  queuedAt: Date,
  now: Date
): Outcome => {
  if (failure.permanent) return Outcome.GiveUp({ reason: "permanent" })
  const at = Time.plus(now, pauseAfter(attempts))
  return at.getTime() > Time.plus(queuedAt, retryFor).getTime()
    ? Outcome.GiveUp({ reason: "expired" })
    : Outcome.Retry({ at })
}
