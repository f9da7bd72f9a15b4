import * as Duration from "effect/Duration"

/** Dates are instants in this codebase; arithmetic stays in milliseconds to avoid time-zone logic. */
export const plus = (date: Date, duration: Duration.DurationInput): Date =>
  new Date(date.getTime() + Duration.toMillis(duration))

export const minus = (date: Date, duration: Duration.DurationInput): Date =>
  new Date(date.getTime() - Duration.toMillis(duration))

export const isAtOrAfter = (date: Date, reference: Date): boolean => date.getTime() >= reference.getTime()
