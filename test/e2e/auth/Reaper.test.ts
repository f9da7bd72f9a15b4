import { randomUUID } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/**
 * The reaper runs in the built service, every `AUTHSVC_REAPER_INTERVAL` (a second here): a factor
 * challenge a day old, a factor nobody challenged past `MFA_FACTOR_EXPIRY_DURATION`, a session
 * signed out a day ago, a refresh token retired a day ago and an anonymous user 30 days old
 * (anonymous sign-ins on) are deleted while the service serves, and the API sees them gone.
 */

const password = "correct horse battery staple"

describe("the auth service's reaper", () => {
  // The rows are aged by hand, over a second connection: a PostgreSQL server is needed (CI sets
  // TEST_DATABASE_URL); the embedded database admits the service's connection alone.
  it.live.skipIf(TestDatabase.isEmbedded("server"))(
    "deletes old factor challenges, abandoned factors, ended sessions, retired tokens and anonymous users",
    () =>
      Effect.gen(function* () {
        const running = yield* AuthServerHarness.start({
          env: { AUTHSVC_REAPER_INTERVAL: "1s", AUTHSVC_EXTERNAL_ANONYMOUS_USERS_ENABLED: "true" }
        })
        const url = Option.getOrThrow(running.databaseUrl)
        const table = (name: string) => `auth."${running.config.db.namespace}${name}"`
        const anonKey = yield* Effect.promise(() => SupabaseClientSupport.apiKey("anon"))
        const supabase = SupabaseClientSupport.client(running.baseUrl, anonKey)
        const email = `user-${randomUUID()}@example.com`
        const retired = yield* Effect.promise(async () => {
          const signUp = await supabase.auth.signUp({ email, password })
          expect(signUp.error).toBeNull()
          // A refresh retires the first refresh token.
          const refreshed = await supabase.auth.refreshSession()
          expect(refreshed.error).toBeNull()
          return signUp.data.session?.refresh_token ?? ""
        })
        // A second sign-in of the user, signed out at once: its session ends.
        const other = SupabaseClientSupport.client(running.baseUrl, anonKey)
        const ended = yield* Effect.promise(async () => {
          const signedIn = await other.auth.signInWithPassword({ email, password })
          expect(signedIn.error).toBeNull()
          expect((await other.auth.signOut({ scope: "local" })).error).toBeNull()
          return signedIn.data.session?.refresh_token ?? ""
        })
        // Two anonymous users, one made 31 days ago and one 29 (their rows aged below).
        const anonymous = () =>
          Effect.promise(async () => {
            const client = SupabaseClientSupport.client(running.baseUrl, anonKey)
            const signedIn = await client.auth.signInAnonymously()
            expect(signedIn.error).toBeNull()
            return {
              client,
              id: signedIn.data.user?.id ?? "",
              token: signedIn.data.session?.refresh_token ?? ""
            }
          })
        const expired = yield* anonymous()
        const young = yield* anonymous()
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
        yield* TestDatabase.query(
          url,
          `UPDATE ${table("mfa_challenges")} SET created_at = now() - interval '25 hours' WHERE id = $1`,
          [challengeId]
        )
        yield* TestDatabase.query(
          url,
          `UPDATE ${table("mfa_factors")} SET created_at = now() - interval '1 hour' WHERE id = $1`,
          [abandoned]
        )
        yield* TestDatabase.query(
          url,
          `UPDATE ${table("sessions")} SET revoked_at = now() - interval '25 hours' WHERE revoked_at IS NOT NULL
             AND user_id = (SELECT id FROM ${table("users")} WHERE email = $1)`,
          [email]
        )
        yield* TestDatabase.query(
          url,
          `UPDATE ${table("refresh_tokens")} SET updated_at = now() - interval '25 hours' WHERE revoked
             AND user_id = (SELECT id FROM ${table("users")} WHERE email = $1)`,
          [email]
        )

        for (const [user, age] of [
          [expired.id, "31 days"],
          [young.id, "29 days"]
        ]) {
          yield* TestDatabase.query(
            url,
            `UPDATE ${table("users")} SET created_at = now() - $2::interval WHERE id = $1`,
            [user, age]
          )
        }

        // Within a few runs of the reaper, the aged rows are gone (bounded: 15 s).
        const left = TestDatabase.query(
          url,
          `SELECT (SELECT count(*) FROM ${table("mfa_challenges")} WHERE id = $1)::int AS challenges,
                  (SELECT count(*) FROM ${table("mfa_factors")} WHERE id = $2)::int AS factors,
                  (SELECT count(*) FROM ${table("sessions")} s JOIN ${table("users")} u ON u.id = s.user_id
                    WHERE u.email = $3 AND s.revoked_at IS NOT NULL)::int AS "endedSessions",
                  (SELECT count(*) FROM ${table("refresh_tokens")} t JOIN ${table("users")} u ON u.id = t.user_id
                    WHERE u.email = $3 AND t.revoked)::int AS "retiredTokens",
                  (SELECT count(*) FROM ${table("users")} WHERE id = $4)::int AS "anonymousUsers"`,
          [challengeId, abandoned, email, expired.id]
        )
        const gone = [{ challenges: 0, factors: 0, endedSessions: 0, retiredTokens: 0, anonymousUsers: 0 }]
        let remaining = yield* left
        for (let tries = 0; tries < 75 && JSON.stringify(remaining) !== JSON.stringify(gone); tries++) {
          yield* Effect.sleep("200 millis")
          remaining = yield* left
        }
        expect(remaining).toEqual(gone)

        // The reaped tokens are unknown: the retired one and the signed-out session's.
        for (const token of [retired, ended]) {
          const refreshed = yield* Effect.promise(() => other.auth.refreshSession({ refresh_token: token }))
          expect(SupabaseClientSupport.apiError(refreshed.error)).toEqual({
            status: 400,
            code: "refresh_token_not_found",
            message: "Invalid Refresh Token: Refresh Token Not Found"
          })
        }

        // The reaped anonymous user's session went with them; the younger one refreshes on.
        const reapedAnonymous = yield* Effect.promise(() =>
          expired.client.auth.refreshSession({ refresh_token: expired.token })
        )
        expect(SupabaseClientSupport.apiError(reapedAnonymous.error)).toEqual({
          status: 400,
          code: "refresh_token_not_found",
          message: "Invalid Refresh Token: Refresh Token Not Found"
        })
        const kept = yield* Effect.promise(() =>
          young.client.auth.refreshSession({ refresh_token: young.token })
        )
        expect(kept.error).toBeNull()
        expect(kept.data.user?.is_anonymous).toBe(true)

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
