import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as SqlState from "../../../adapters/postgres/SqlState.js"
import { constraintOf } from "../../../adapters/postgres/UniqueViolation.js"

const failed = (cause: unknown) => new SqlError({ cause, message: "the statement failed" })

describe("SQLSTATEs of a failed statement", () => {
  it("are read from the driver's error, the SqlError's cause; nothing else has one", () => {
    expect(SqlState.of(failed({ code: "40P01", message: "deadlock detected" }))).toEqual(Option.some("40P01"))
    expect(SqlState.of(failed({ message: "no code" }))).toEqual(Option.none())
    expect(SqlState.of(failed({ code: 40 }))).toEqual(Option.none())
    expect(SqlState.of(failed("a string"))).toEqual(Option.none())
    expect(SqlState.of(failed(null))).toEqual(Option.none())
  })

  it("name the constraint of a unique violation only", () => {
    expect(constraintOf(failed({ code: "23505", constraint: "users_phone_key" }))).toEqual(
      Option.some("users_phone_key")
    )
    expect(constraintOf(failed({ code: "23503", constraint: "users_phone_key" }))).toEqual(Option.none())
    expect(constraintOf(failed({ code: "23505" }))).toEqual(Option.none())
  })
})
