import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as TestDatabase from "../../../support/TestDatabase.js"

/**
 * Migration 0013 creates the tables of factors, their challenges, recovery codes, passkeys and
 * passkey challenges, in every `DB_NAMESPACE`, with Supabase Auth's columns and the constraints
 * the domain relies on (docs/decisions/0015).
 */

const Names = Schema.Struct({ names: Schema.Array(Schema.String) })
const Count = Schema.Struct({ count: Schema.Number })

const now = new Date("2026-01-01T00:00:00Z")
const userId = "2d1c0b9a-8f7e-4d6c-9b5a-4e3f2a1b0c9d"
const otherUserId = "3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b"

const countOf = (table: string, userColumn: "user_id" | "factor_id", id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe(`SELECT count(*)::int AS count FROM auth.${table} WHERE ${userColumn} = $1`, [id]).pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(Count))),
      Effect.map((rows) => rows[0]?.count ?? -1)
    )
  )

for (const target of ["pglite", "server"] as const) {
  layer(TestDatabase.authLayer(target, ["", "zeta"]), { timeout: "60 seconds" })(
    `0013_mfa on ${TestDatabase.describeTarget(target)}`,
    (it) =>
      describe("factors, challenges, recovery codes and passkeys", () => {
        it.effect("every table and index carries the namespace's prefix", () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const rows = yield* sql`
              SELECT array_agg(relname::text ORDER BY relname) AS names FROM pg_class c
              JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = 'auth' AND c.relkind IN ('r', 'i')
                AND (relname LIKE 'zeta\\_mfa%' OR relname LIKE 'zeta\\_webauthn%')`.pipe(
              Effect.flatMap(Schema.decodeUnknown(Schema.Array(Names)))
            )
            expect(rows[0]?.names).toEqual(
              expect.arrayContaining([
                "zeta_mfa_factors",
                "zeta_mfa_factors_pkey",
                "zeta_mfa_factors_user_friendly_name_unique",
                "zeta_mfa_factors_user_phone_unique",
                "zeta_mfa_factors_one_recovery_code_set",
                "zeta_mfa_factors_user_id_created_at_idx",
                "zeta_mfa_challenges",
                "zeta_mfa_challenges_pkey",
                "zeta_mfa_challenges_factor_id_idx",
                "zeta_mfa_challenges_created_at_idx",
                "zeta_mfa_recovery_codes",
                "zeta_mfa_recovery_codes_pkey",
                "zeta_mfa_recovery_codes_factor_code_unique",
                "zeta_webauthn_credentials",
                "zeta_webauthn_credentials_pkey",
                "zeta_webauthn_credentials_credential_id_key",
                "zeta_webauthn_credentials_user_id_idx",
                "zeta_webauthn_challenges",
                "zeta_webauthn_challenges_pkey",
                "zeta_webauthn_challenges_user_id_idx",
                "zeta_webauthn_challenges_expires_at_idx"
              ])
            )
          })
        )

        it.effect("keeps the rules of the domain, and a user's deletion takes everything of theirs", () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            for (const id of [userId, otherUserId]) {
              yield* sql`INSERT INTO auth.users (id, aud, role, created_at, updated_at)
                VALUES (${id}, 'authenticated', 'authenticated', ${now}, ${now})`
            }
            const factor = (id: string, fields: { name: string | null; type: string; phone?: string }) =>
              sql`INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, phone)
                VALUES (${id}, ${userId}, ${fields.name}, ${fields.type}, 'unverified', ${now}, ${now}, ${fields.phone ?? null})`
            const refused = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
              Effect.map(Effect.either(effect), Either.isLeft)

            yield* factor("00000000-0000-4000-8000-000000000a01", { name: "app", type: "totp" })
            // A second factor named alike is refused; blank and absent names may repeat.
            expect(
              yield* refused(factor("00000000-0000-4000-8000-000000000a02", { name: "app", type: "totp" }))
            ).toBe(true)
            yield* factor("00000000-0000-4000-8000-000000000a03", { name: "", type: "totp" })
            yield* factor("00000000-0000-4000-8000-000000000a04", { name: " ", type: "webauthn" })
            yield* factor("00000000-0000-4000-8000-000000000a05", { name: null, type: "totp" })
            // One factor per number; factor types and statuses are Supabase Auth's.
            yield* factor("00000000-0000-4000-8000-000000000a06", {
              name: "p1",
              type: "phone",
              phone: "15555550100"
            })
            expect(
              yield* refused(
                factor("00000000-0000-4000-8000-000000000a07", {
                  name: "p2",
                  type: "phone",
                  phone: "15555550100"
                })
              )
            ).toBe(true)
            expect(
              yield* refused(factor("00000000-0000-4000-8000-000000000a08", { name: "x", type: "sms" }))
            ).toBe(true)
            // One recovery-code set per user.
            const codes = "00000000-0000-4000-8000-000000000a09"
            yield* factor(codes, { name: "Recovery codes", type: "recovery_code" })
            expect(
              yield* refused(
                factor("00000000-0000-4000-8000-000000000a0a", { name: "More", type: "recovery_code" })
              )
            ).toBe(true)

            yield* sql`INSERT INTO auth.mfa_challenges (id, factor_id, created_at, ip_address, otp_code_hash)
              VALUES (gen_random_uuid(), '00000000-0000-4000-8000-000000000a06', ${now}, '203.0.113.7', ${"c".repeat(64)})`
            yield* sql`INSERT INTO auth.mfa_recovery_codes (id, factor_id, code_hash, created_at)
              VALUES (gen_random_uuid(), ${codes}, ${"a".repeat(64)}, ${now}),
                     (gen_random_uuid(), ${codes}, ${"b".repeat(64)}, ${now})`
            expect(
              yield* refused(sql`INSERT INTO auth.mfa_recovery_codes (id, factor_id, code_hash, created_at)
                VALUES (gen_random_uuid(), ${codes}, ${"a".repeat(64)}, ${now})`)
            ).toBe(true)

            const credential = (id: string, owner: string) =>
              sql`INSERT INTO auth.webauthn_credentials (id, user_id, credential_id, public_key, created_at, updated_at)
                VALUES (${id}, ${owner}, decode('0a0b0c', 'hex'), decode('01', 'hex'), ${now}, ${now})`
            yield* credential("00000000-0000-4000-8000-000000000b01", userId)
            // A credential id is registered once, whoever holds it.
            expect(yield* refused(credential("00000000-0000-4000-8000-000000000b02", otherUserId))).toBe(true)
            yield* sql`INSERT INTO auth.webauthn_challenges (id, user_id, challenge_type, session_data, created_at, expires_at)
              VALUES (gen_random_uuid(), ${userId}, 'registration', '{}'::jsonb, ${now}, ${now}),
                     (gen_random_uuid(), NULL, 'authentication', '{}'::jsonb, ${now}, ${now})`
            expect(
              yield* refused(sql`INSERT INTO auth.webauthn_challenges (id, challenge_type, session_data, created_at, expires_at)
                VALUES (gen_random_uuid(), 'login', '{}'::jsonb, ${now}, ${now})`)
            ).toBe(true)

            expect(yield* countOf("mfa_factors", "user_id", userId)).toBe(6)
            yield* sql`DELETE FROM auth.users WHERE id = ${userId}`
            expect(yield* countOf("mfa_factors", "user_id", userId)).toBe(0)
            expect(
              yield* countOf("mfa_challenges", "factor_id", "00000000-0000-4000-8000-000000000a06")
            ).toBe(0)
            expect(yield* countOf("mfa_recovery_codes", "factor_id", codes)).toBe(0)
            expect(yield* countOf("webauthn_credentials", "user_id", userId)).toBe(0)
            expect(yield* countOf("webauthn_challenges", "user_id", userId)).toBe(0)
          })
        )
      })
  )
}
