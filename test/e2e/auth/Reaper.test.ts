import { randomUUID } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import pg from "pg"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/**
 * The reaper runs in the built service, every `AUTHSVC_REAPER_INTERVAL` (a second here): a factor
 * challenge a day old and a factor nobody challenged past `MFA_FACTOR_EXPIRY_DURATION` are
 * deleted while the service serves, and the API sees them gone.
 */

/** Runs a statement on the service's database, one connection, closed afterwards. */
const query = (url: string, text: string, values: ReadonlyArray<unknown> = []) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return (await client.query(text, [...values])).rows
    } finally {
      await client.end()
    }
  })

const password = "correct horse battery staple"

describe("the auth service's reaper", () => {
  // The rows are aged by hand, over a second connection: a PostgreSQL server is needed (CI sets
  // TEST_DATABASE_URL); the embedded database admits the service's connection alone.
  it.live.skipIf(TestDatabase.isEmbedded("server"))(
    "deletes a day-old factor challenge and an abandoned factor while the service runs",
    () =>
      Effect.gen(function* () {
        const running = yield* AuthServerHarness.start({ env: { AUTHSVC_REAPER_INTERVAL: "1s" } })
        const url = Option.getOrThrow(running.databaseUrl)
        const table = (name: string) => `auth."${running.config.db.namespace}${name}"`
        const anonKey = yield* Effect.promise(() => SupabaseClientSupport.apiKey("anon"))
        const supabase = SupabaseClientSupport.client(running.baseUrl, anonKey)
        yield* Effect.promise(async () => {
          const signUp = await supabase.auth.signUp({ email: `user-${randomUUID()}@example.com`, password })
          expect(signUp.error).toBeNull()
        })
        const enrol = (friendlyName: string) =>
          Effect.promise(async () => {
            const enrolled = await supabase.auth.mfa.enroll({ factorType: "totp", friendlyName })
            expect(enrolled.error).toBeNull()
            return enrolled.data?.id ?? ""
          })
        const challenged = yield* enrol("challenged")
        const abandoned = yield* enrol("abandoned")
        const challengeId = yield* Effect.promise(async () => {
          const challenge = await supabase.auth.mfa.challenge({ factorId: challenged })
          expect(challenge.error).toBeNull()
          return challenge.data?.id ?? ""
        })
        yield* query(
          url,
          `UPDATE ${table("mfa_challenges")} SET created_at = now() - interval '25 hours' WHERE id = $1`,
          [challengeId]
        )
        yield* query(
          url,
          `UPDATE ${table("mfa_factors")} SET created_at = now() - interval '1 hour' WHERE id = $1`,
          [abandoned]
        )

        // Within a few runs of the reaper, both rows are gone (bounded: 15 s).
        const left = query(
          url,
          `SELECT (SELECT count(*) FROM ${table("mfa_challenges")} WHERE id = $1)::int AS challenges,
                  (SELECT count(*) FROM ${table("mfa_factors")} WHERE id = $2)::int AS factors`,
          [challengeId, abandoned]
        )
        let remaining = yield* left
        for (
          let tries = 0;
          tries < 75 && JSON.stringify(remaining) !== '[{"challenges":0,"factors":0}]';
          tries++
        ) {
          yield* Effect.sleep("200 millis")
          remaining = yield* left
        }
        expect(remaining).toEqual([{ challenges: 0, factors: 0 }])

        // The API sees them gone: the challenge is unknown, the factor no longer listed.
        const verified = yield* Effect.promise(() =>
          supabase.auth.mfa.verify({ factorId: challenged, challengeId, code: "000000" })
        )
        expect(SupabaseClientSupport.apiError(verified.error)).toEqual({
          status: 422,
          code: "mfa_factor_not_found",
          message: "MFA factor with the provided challenge ID not found"
        })
        const listed = yield* Effect.promise(() => supabase.auth.mfa.listFactors())
        expect(listed.data?.all.map((factor) => factor.id)).toEqual([challenged])
      }).pipe(Effect.scoped),
    60_000
  )
})
