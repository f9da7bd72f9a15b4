import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * The constraint (or unique index) a statement broke, when it failed on a unique violation
 * (SQLSTATE 23505); none for any other failure. The driver's error is the SqlError's cause.
 */
export const constraintOf = (error: SqlError): Option.Option<string> => {
  const cause = error.cause
  if (typeof cause !== "object" || cause === null) return Option.none()
  if (!("code" in cause) || cause.code !== "23505") return Option.none()
  return "constraint" in cause && typeof cause.constraint === "string"
    ? Option.some(cause.constraint)
    : Option.none()
}

/** A unique violation as the typed error `conflict` finds for it; any other failure is a defect. */
export const failOn =
  <E>(conflict: (constraint: string) => Option.Option<E>) =>
  (error: SqlError): Effect.Effect<never, E> =>
    Option.match(Option.flatMap(constraintOf(error), conflict), {
      onNone: () => Effect.die(error),
      onSome: Effect.fail
    })
