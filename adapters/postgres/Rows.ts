import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option, Schema } from "effect"

/**
 * Rows come back camel-cased (see Database.ts), so a domain Schema decodes them directly.
 * A row that does not decode, like any SQL failure, is a defect: storage broke an invariant
 * the application cannot handle, and the request ends as a generic 500 with a request id.
 */
export const decodeAll =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (effect: Effect.Effect<ReadonlyArray<unknown>, SqlError>): Effect.Effect<ReadonlyArray<A>> =>
    effect.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(schema))), Effect.orDie)

export const decodeFirst =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (effect: Effect.Effect<ReadonlyArray<unknown>, SqlError>): Effect.Effect<Option.Option<A>> =>
    decodeAll(schema)(effect).pipe(Effect.map((rows) => Option.fromNullable(rows[0])))
