import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import type * as Schema from "effect/Schema"

/**
 * Rows come back camel-cased (see Database.ts), so a domain Schema decodes them directly.
 * A row that does not decode, like any SQL failure, is a defect: storage broke an invariant
 * the application cannot handle, and the request ends as a generic 500 with a request id.
 *
 * Rows are decoded one by one with the schema itself: effect memoises the parser of a schema,
 * while wrapping it in `Schema.Array` on every query would build a new schema class each time.
 */
export const decodeAll = <A, I>(schema: Schema.Schema<A, I>) => {
  const decodeRow = ParseResult.decodeUnknownEither(schema)
  return (effect: Effect.Effect<ReadonlyArray<unknown>, SqlError>): Effect.Effect<ReadonlyArray<A>> =>
    effect.pipe(
      Effect.orDie,
      Effect.flatMap((rows) => {
        // Synchronously, row by row: an effect per row costs more than decoding it.
        const decoded: Array<A> = []
        for (const row of rows) {
          const result = decodeRow(row)
          if (Either.isLeft(result)) return Effect.die(result.left)
          decoded.push(result.right)
        }
        return Effect.succeed(decoded)
      })
    )
}

export const decodeFirst =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (effect: Effect.Effect<ReadonlyArray<unknown>, SqlError>): Effect.Effect<Option.Option<A>> =>
    decodeAll(schema)(effect).pipe(Effect.map((rows) => Option.fromNullable(rows[0])))
