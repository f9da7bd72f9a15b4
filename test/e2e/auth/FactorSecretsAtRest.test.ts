import { randomUUID } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { codeOfStep } from "../../application/auth/support/Factors.js"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/**
 * TOTP secrets sealed at rest, configured as a Supabase Auth deployment configures it
 * (`GOTRUE_SECURITY_DB_ENCRYPTION_*`), through supabase-js against the built service: a new
 * factor's secret is stored sealed under the encryption key and verifies; a factor a Supabase
 * project sealed under its older key (`DECRYPTION_KEYS`) verifies too, and is sealed again
 * under the encryption key.
 */

// Sealed by Supabase Auth's scheme in Go (test/adapters/crypto/auth/DatabaseEncryption.test.ts)
// for the factor `supabaseFactorId` under `key-1`.
const supabaseKey = "ZGV0ZXJtaW5pc3RpYy1rZXktZm9yLXRlc3RzLW9ubHk"
const supabaseFactorId = "1f0c3a52-8a6e-4c8e-9d3b-2f6a7b1c9e01"
const supabaseSecret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
const sealedBySupabase =
  '{"key_id":"key-1","alg":"aes-gcm-hkdf","data":"2adW0cwFsc3Ma/fr7+HTcgkVPIS7WMSY62PJn16mrQaR3v8E4a89Ojr8Wf7Jx4ru","nonce":"AAECAwQFBgcICQoL"}'

const codeNow = (secret: string) => codeOfStep(secret, Math.floor(Date.now() / 1000 / 30))

describe("TOTP secrets sealed at rest", () => {
  // Rows are read and set over a second connection: a PostgreSQL server is needed (CI sets
  // TEST_DATABASE_URL); the embedded database admits the service's connection alone.
  it.live.skipIf(TestDatabase.isEmbedded("server"))(
    "a new factor's secret is stored sealed and verifies; one sealed under an older key too, then resealed",
    () =>
      Effect.gen(function* () {
        const running = yield* AuthServerHarness.start({
          env: {
            GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPT: "true",
            GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID: "key-2",
            GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: Buffer.alloc(32, 2).toString("base64url"),
            GOTRUE_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS: `key-1:${supabaseKey}`
          }
        })
        const url = Option.getOrThrow(running.databaseUrl)
        const factors = `auth."${running.config.db.namespace}mfa_factors"`
        const anonKey = yield* Effect.promise(() => SupabaseClientSupport.apiKey("anon"))
        const supabase = SupabaseClientSupport.client(running.baseUrl, anonKey)
        const email = `user-${randomUUID()}@example.com`

        const enrolled = yield* Effect.promise(async () => {
          expect(
            (await supabase.auth.signUp({ email, password: "correct horse battery staple" })).error
          ).toBeNull()
          const enrolment = await supabase.auth.mfa.enroll({ factorType: "totp", friendlyName: "app" })
          if (enrolment.data === null || enrolment.data.type !== "totp") throw new Error("a TOTP enrolment")
          return enrolment.data
        })
        const [row] = yield* TestDatabase.query(url, `SELECT secret FROM ${factors} WHERE id = $1`, [
          enrolled.id
        ])
        const stored = String(row?.secret)
        expect(JSON.parse(stored)).toMatchObject({ key_id: "key-2", alg: "aes-gcm-hkdf" })
        expect(stored).not.toContain(enrolled.totp.secret)
        yield* Effect.promise(async () => {
          const verified = await supabase.auth.mfa.challengeAndVerify({
            factorId: enrolled.id,
            code: codeNow(enrolled.totp.secret)
          })
          expect(verified.error).toBeNull()
        })

        // A factor as a Supabase project's rows bring it: its id, its secret sealed under key-1.
        const second = yield* Effect.promise(async () => {
          const enrolment = await supabase.auth.mfa.enroll({ factorType: "totp", friendlyName: "imported" })
          if (enrolment.data === null) throw new Error("a TOTP enrolment")
          return enrolment.data.id
        })
        yield* TestDatabase.query(url, `UPDATE ${factors} SET id = $1, secret = $2 WHERE id = $3`, [
          supabaseFactorId,
          sealedBySupabase,
          second
        ])
        yield* Effect.promise(async () => {
          const verified = await supabase.auth.mfa.challengeAndVerify({
            factorId: supabaseFactorId,
            code: codeNow(supabaseSecret)
          })
          expect(verified.error).toBeNull()
        })
        // Used once, it is sealed again under the key of the moment.
        const [resealed] = yield* TestDatabase.query(url, `SELECT secret FROM ${factors} WHERE id = $1`, [
          supabaseFactorId
        ])
        expect(JSON.parse(String(resealed?.secret))).toMatchObject({ key_id: "key-2", alg: "aes-gcm-hkdf" })
        yield* Effect.promise(async () => {
          // Sealed for another factor, it is no secret of this one: a 500, as Supabase Auth answers.
          const third = await supabase.auth.mfa.enroll({ factorType: "totp", friendlyName: "moved" })
          if (third.data === null) throw new Error("a TOTP enrolment")
          return third.data.id
        }).pipe(
          Effect.tap((third) =>
            TestDatabase.query(url, `UPDATE ${factors} SET secret = $1 WHERE id = $2`, [
              sealedBySupabase,
              third
            ])
          ),
          Effect.flatMap((third) =>
            Effect.promise(async () => {
              const refused = await supabase.auth.mfa.challengeAndVerify({
                factorId: third,
                code: codeNow(supabaseSecret)
              })
              // supabase-js reports a 5xx without its code.
              expect(SupabaseClientSupport.apiError(refused.error)).toMatchObject({
                status: 500,
                message: "Database error verifying MFA TOTP secret"
              })
            })
          )
        )
      }).pipe(Effect.scoped)
  )
})
