import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Rows from "../../../adapters/postgres/Rows.js"

const Row = Schema.Struct({ id: Schema.String, seenAt: Schema.OptionFromNullOr(Schema.DateFromSelf) })
const at = new Date("2026-11-22T00:00:00Z")

describe("Rows", () => {
  it.effect("decodes every row with the schema", () =>
    Effect.gen(function* () {
      const rows = yield* Effect.succeed([
        { id: "a", seenAt: null },
        { id: "b", seenAt: at }
      ]).pipe(Rows.decodeAll(Row))
      expect(rows).toEqual([
        { id: "a", seenAt: Option.none() },
        { id: "b", seenAt: Option.some(at) }
      ])
    })
  )

  it.effect("decodeFirst is the first row, or none for no rows", () =>
    Effect.gen(function* () {
      const first = yield* Effect.succeed([{ id: "a", seenAt: null }]).pipe(Rows.decodeFirst(Row))
      const none = yield* Effect.succeed([]).pipe(Rows.decodeFirst(Row))
      expect([first, none]).toEqual([Option.some({ id: "a", seenAt: Option.none() }), Option.none()])
    })
  )

  it.effect("a row that does not decode is a defect, not a failure", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.succeed([{ id: "a", seenAt: null }, { id: 7 }]).pipe(
        Rows.decodeAll(Row),
        Effect.exit
      )
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
    })
  )

  it.effect("a SQL failure is a defect too", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.fail(new SqlError({ message: "connection lost" })).pipe(
        Rows.decodeAll(Row),
        Effect.exit
      )
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
    })
  )
})
