import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as SqlState from "./SqlState.js"

/**
 * The constraint (or unique index) a statement broke, when it failed on a unique violation
 * (SQLSTATE 23505); none for any other failure. The driver's error is the SqlError's cause.
 */
export const constraintOf = (error: SqlError): Option.Option<string> => {
  if (!Option.contains(SqlState.of(error), SqlState.uniqueViolation)) return Option.none()
  const constraint: unknown = Reflect.get(Object(error.cause), "constraint")
  return typeof constraint === "string" ? Option.some(constraint) : Option.none()
}

/** A unique violation as the typed error `conflict` finds for it; any other failure is a defect. */
export const failOn =
  <E>(conflict: (constraint: string) => Option.Option<E>) =>
  (error: SqlError): Effect.Effect<never, E> =>
    Option.match(Option.flatMap(constraintOf(error), conflict), {
      onNone: () => Effect.die(error),
      onSome: Effect.fail
    })
