/**
 * Supabase's API keys: long-lived HS256 JWTs signed with the project's JWT secret, whose only
 * claim that matters is `role`. `anon` is the public key an application ships (the auth service
 * checks no key on its public endpoints); `service_role` is a server's key to the admin API. The
 * claims are those `supabase status` prints keys with: `iss` "supabase", the role, `iat`, and an
 * `exp` ten years on.
 */

export const roles = ["anon", "service_role"] as const
export type Role = (typeof roles)[number]

export const issuer = "supabase"

/** Ten years of 365 days, as the Supabase CLI's keys live. */
export const lifetimeSeconds = 10 * 365 * 24 * 60 * 60

export interface Claims {
  readonly iss: string
  readonly role: Role
  readonly iat: number
  readonly exp: number
}

/** The claims of the key of `role`, issued at `now`. */
export const claims = (role: Role, now: Date): Claims => {
  const iat = Math.floor(now.getTime() / 1000)
  return { iss: issuer, role, iat, exp: iat + lifetimeSeconds }
}
