import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as BatchedDelete from "../../../adapters/postgres/BatchedDelete.js"
import { decodeAll } from "../../../adapters/postgres/Rows.js"
import * as TestDatabase from "../../support/TestDatabase.js"

const batch = (table: string): BatchedDelete.Batch => ({
  table,
  key: "id",
  where: "candidate.due_at < $1",
  limit: "$2"
})

const Ids = Schema.Struct({ id: Schema.Int })

/** A table of rows 1–6, rows 1–4 due before `cutoff`. */
const seeded = (table: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`CREATE TABLE ${table} (id int PRIMARY KEY, due_at timestamptz NOT NULL)`)
    yield* sql.unsafe(
      `INSERT INTO ${table} SELECT n, timestamptz '2026-11-27 00:00:00Z' + n * interval '1 hour'
       FROM generate_series(1, 6) AS n`
    )
    return sql
  })

const cutoff = new Date("2026-11-27T04:30:00Z")

const left = (sql: SqlClient.SqlClient, table: string) =>
  sql
    .unsafe(`SELECT id FROM ${table} ORDER BY id`)
    .pipe(decodeAll(Ids))
    .pipe(Effect.map((rows) => rows.map((row) => row.id)))

describe.skipIf(TestDatabase.isEmbedded("server"))("BatchedDelete", () => {
  layer(TestDatabase.layer("server"), { timeout: "60 seconds" })("on PostgreSQL", (it) => {
    it.effect("deletes at most the limit of the rows that match, and says how many", () =>
      Effect.gen(function* () {
        const sql = yield* seeded("public.batched_limit")
        const counts = [
          yield* BatchedDelete.count(sql, batch("public.batched_limit"), [cutoff, 3]),
          yield* BatchedDelete.count(sql, batch("public.batched_limit"), [cutoff, 3]),
          yield* BatchedDelete.count(sql, batch("public.batched_limit"), [cutoff, 3])
        ]
        expect(counts).toEqual([3, 1, 0])
        expect(yield* left(sql, "public.batched_limit")).toEqual([5, 6])
      })
    )

    it.effect("passes over a row another transaction holds, without waiting for it", () =>
      Effect.gen(function* () {
        const sql = yield* seeded("public.batched_locked")
        const release = yield* TestDatabase.holdingRows(
          "SELECT id FROM public.batched_locked WHERE id = 2 FOR UPDATE",
          []
        )
        // Were the held row waited for, this would not return until the release below.
        const gone = yield* BatchedDelete.count(sql, batch("public.batched_locked"), [cutoff, 100])
        yield* release
        expect(gone).toBe(3)
        expect(yield* left(sql, "public.batched_locked")).toEqual([2, 5, 6])
        // Let go, the held row goes with the next batch.
        expect(yield* BatchedDelete.count(sql, batch("public.batched_locked"), [cutoff, 100])).toBe(1)
      })
    )
  })
})
