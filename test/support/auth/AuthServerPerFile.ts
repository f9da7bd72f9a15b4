import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll } from "vitest"
import type * as AuthServerEnvironment from "./AuthServerEnvironment.js"
import * as AuthServerHarness from "./AuthServerHarness.js"
import * as SupabaseClientSupport from "./SupabaseClient.js"

/** The running service of a test file, read once its tests run. */
export interface PerFile {
  readonly baseUrl: string
  readonly anonKey: string
  readonly serviceKey: string
  /** supabase-js as an application's page makes it, with the anon key. */
  readonly client: () => ReturnType<typeof SupabaseClientSupport.client>
  /** supabase-js's admin API, with the service-role key. */
  readonly admin: () => ReturnType<typeof SupabaseClientSupport.client>["auth"]["admin"]
}

/**
 * The built auth service for the tests of one file (AuthServerHarness.start with `options`):
 * started before them, stopped after them, with the two API keys supabase-js is given.
 */
export const start = (options: AuthServerEnvironment.Options = {}): PerFile => {
  const scope = Effect.runSync(Scope.make())
  const running = { baseUrl: "", anonKey: "", serviceKey: "" }
  beforeAll(async () => {
    running.baseUrl = (await Effect.runPromise(Scope.extend(AuthServerHarness.start(options), scope))).baseUrl
    running.anonKey = await SupabaseClientSupport.apiKey("anon")
    running.serviceKey = await SupabaseClientSupport.apiKey("service_role")
  }, 60_000)
  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })
  return {
    get baseUrl() {
      return running.baseUrl
    },
    get anonKey() {
      return running.anonKey
    },
    get serviceKey() {
      return running.serviceKey
    },
    client: () => SupabaseClientSupport.client(running.baseUrl, running.anonKey),
    admin: () => SupabaseClientSupport.client(running.baseUrl, running.serviceKey).auth.admin
  }
}
