import { createClient, isAuthError, type SupabaseClient } from "@supabase/supabase-js"
import { SignJWT } from "jose"
import { jwtSecret } from "./AuthServerHarness.js"

/** An API key as Supabase issues them: an HS256 JWT of a role, signed with the JWT secret. */
export const apiKey = (role: "anon" | "service_role") =>
  new SignJWT({ role, iss: "supabase" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt()
    .setExpirationTime("1 hour")
    .sign(new TextEncoder().encode(jwtSecret))

/**
 * supabase-js as an application creates it: the service's URL and a key, nothing else (its
 * realtime part finds Node's WebSocket: vitest.config.ts). Sessions are kept in memory per
 * client and never refreshed behind the test's back.
 */
export const client = (baseUrl: string, key: string): SupabaseClient =>
  createClient(baseUrl, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false }
  })

/**
 * supabase-js as server-side frameworks run it: the PKCE flow, its verifier kept in the client's
 * own storage, so that `exchangeCodeForSession` finds it.
 */
export const pkceClient = (baseUrl: string, key: string): SupabaseClient => {
  const stored = new Map<string, string>()
  return createClient(baseUrl, key, {
    auth: {
      flowType: "pkce",
      persistSession: true,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      storage: {
        getItem: (item: string) => stored.get(item) ?? null,
        setItem: (item: string, value: string) => {
          stored.set(item, value)
        },
        removeItem: (item: string) => {
          stored.delete(item)
        }
      }
    }
  })
}

/** The error a supabase-js call returned, as the status, code and message a client branches on. */
export const apiError = (error: unknown) => {
  if (!isAuthError(error)) throw new Error(`expected an error of supabase-js, got ${String(error)}`)
  return { status: error.status, code: error.code, message: error.message }
}
