import { readFileSync } from "node:fs"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as TestDatabase from "../../../support/TestDatabase.js"

/**
 * Migration 0012 turns the numbers stored before it (E.164 with its `+`) into Supabase Auth's
 * stored form, the digits alone, everywhere a number is kept: users, pending changes, phone
 * identities and the record of where a code was texted. It runs here again over rows written in
 * the old form, after every migration has run once, as on a database that predates it.
 */

const migration = readFileSync(
  new URL("../../../../adapters/postgres/migrations/auth/0012_phone_digits.sql", import.meta.url),
  "utf8"
)

const userId = "0b9f1c2e-3d4a-4b5c-8d6e-7f8091a2b3c4"
const otherId = "1c0a2d3f-4e5b-4c6d-9e7f-8091a2b3c4d5"

// The client hands column names over in camel case.
const Row = Schema.Struct({
  phone: Schema.NullOr(Schema.String),
  phoneChange: Schema.NullOr(Schema.String),
  identityPhone: Schema.NullOr(Schema.String),
  githubPhone: Schema.NullOr(Schema.String),
  sentTo: Schema.Array(Schema.String)
})

for (const target of ["pglite", "server"] as const) {
  layer(TestDatabase.authLayer(target), { timeout: "60 seconds" })(
    `0012_phone_digits on ${TestDatabase.describeTarget(target)}`,
    (it) =>
      describe("numbers stored with a +", () => {
        it.effect("lose the + in every column that keeps one, and nothing else changes", () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const now = new Date("2026-01-01T00:00:00Z")
            yield* sql`INSERT INTO auth.users (id, aud, role, phone, phone_change, email, created_at, updated_at)
              VALUES (${userId}, 'authenticated', 'authenticated', '+15555550100', '+447700900123', NULL, ${now}, ${now}),
                     (${otherId}, 'authenticated', 'authenticated', NULL, NULL, 'plus+tag@example.com', ${now}, ${now})`
            yield* sql`INSERT INTO auth.identities (id, provider_id, user_id, identity_data, provider, created_at, updated_at)
              VALUES (gen_random_uuid(), ${userId}, ${userId}, ${{ sub: userId, phone: "+15555550100" }}, 'phone', ${now}, ${now}),
                     (gen_random_uuid(), '42', ${userId}, ${{ sub: "42", phone: "+15555550100" }}, 'github', ${now}, ${now})`
            yield* sql`INSERT INTO auth.one_time_tokens (id, user_id, purpose, sent_to, link_hash, code_hash, created_at, expires_at)
              VALUES (gen_random_uuid(), ${userId}, 'phone_change', '+447700900123', 'a', 'b', ${now}, ${now}),
                     (gen_random_uuid(), ${otherId}, 'confirmation', 'plus+tag@example.com', 'c', 'd', ${now}, ${now})`

            yield* sql.unsafe(migration.replaceAll("{{prefix}}", ""))

            const rows = yield* sql`
              SELECT u.phone, u.phone_change,
                (SELECT identity_data ->> 'phone' FROM auth.identities WHERE user_id = u.id AND provider = 'phone') AS identity_phone,
                (SELECT identity_data ->> 'phone' FROM auth.identities WHERE user_id = u.id AND provider = 'github') AS github_phone,
                ARRAY(SELECT sent_to FROM auth.one_time_tokens ORDER BY sent_to) AS sent_to
              FROM auth.users u WHERE u.id = ${userId}`.pipe(
              Effect.flatMap(Schema.decodeUnknown(Schema.Array(Row)))
            )
            expect(rows).toEqual([
              {
                phone: "15555550100",
                phoneChange: "447700900123",
                identityPhone: "15555550100",
                // A provider's own profile is kept as the provider reported it.
                githubPhone: "+15555550100",
                sentTo: ["447700900123", "plus+tag@example.com"]
              }
            ])
          })
        )
      })
  )
}
