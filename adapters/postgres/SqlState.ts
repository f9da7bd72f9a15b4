import type { SqlError } from "@effect/sql/SqlError"
import * as Option from "effect/Option"

/** The SQLSTATEs the adapters answer to by name (PostgreSQL's appendix A, "Error Codes"). */
export const uniqueViolation = "23505"
export const divisionByZero = "22012"
export const deadlockDetected = "40P01"

/** The SQLSTATE a statement failed with: the driver's error, the SqlError's cause, carries it. */
export const of = (error: SqlError): Option.Option<string> => {
  const cause = error.cause
  if (typeof cause !== "object" || cause === null || !("code" in cause)) return Option.none()
  return typeof cause.code === "string" ? Option.some(cause.code) : Option.none()
}
