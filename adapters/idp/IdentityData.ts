import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UpstreamLoginFailed } from "../../application/ports/UpstreamIdentityProvider.js"
import type { UpstreamProfile } from "../../domain/UpstreamProfile.js"

/**
 * The identity data Supabase Auth keeps for a login at an external provider: the claims each of
 * its providers fills (`provider.Claims`), the address it picked and whether the provider
 * vouched for it. Applications read these keys from `identities[].identity_data` and
 * `user_metadata`, so the names are Supabase Auth's, deprecated ones (`full_name`,
 * `avatar_url`, `slug`, `user_name`, `provider_id`) included.
 */

/** An address a provider reports, with what it says about it. */
export interface EmailCandidate {
  readonly email: string
  readonly verified: boolean
  readonly primary: boolean
}

/** The claims a provider fills; empty or absent values are left out of the identity data. */
export interface Claims {
  readonly iss: string
  readonly sub: string
  readonly name?: string | undefined
  readonly given_name?: string | undefined
  readonly family_name?: string | undefined
  readonly nickname?: string | undefined
  readonly preferred_username?: string | undefined
  readonly picture?: string | undefined
  readonly locale?: string | undefined
  /** The user's page at the provider, and their own website (X). */
  readonly profile?: string | undefined
  readonly website?: string | undefined
  readonly full_name?: string | undefined
  readonly avatar_url?: string | undefined
  readonly slug?: string | undefined
  readonly user_name?: string | undefined
  /** Claims particular to the provider, kept under `custom_claims` as Supabase Auth does. */
  readonly custom_claims?: Readonly<Record<string, unknown>> | undefined
}

/** What a provider's mapping yields; the shared code adds the provider's tokens. */
export type ProviderProfile = Omit<UpstreamProfile, "tokens">

/**
 * The address Supabase Auth records: the first one marked primary, else the last one listed.
 * It is recorded even when unverified, with `email_verified: false`; whether an unverified
 * address may link accounts is the auth service's decision, not the provider's.
 */
export const chooseEmail = (emails: ReadonlyArray<EmailCandidate>): Option.Option<EmailCandidate> =>
  Option.orElse(Option.fromNullable(emails.find((candidate) => candidate.primary)), () =>
    Option.fromNullable(emails.at(-1))
  )

/** The one address a provider reports, if it reports one, as the primary. */
export const single = (email: string | undefined, verified: boolean): ReadonlyArray<EmailCandidate> =>
  email === undefined ? [] : [{ email, verified, primary: true }]

/** `value` when it says something: a non-empty string. */
export const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value : undefined

/**
 * ID token claims whose address, if any, counts as verified: the providers whose tokens carry
 * no `email_verified` and only addresses they checked (Facebook's Limited Login, Snapchat,
 * Kakao), as Supabase Auth reads them.
 */
export const addressVerified = (
  claims: Readonly<Record<string, unknown>>
): Readonly<Record<string, unknown>> => ({
  ...claims,
  email_verified: text(claims.email) !== undefined
})

/** Some providers send booleans as strings (`"true"`, Azure's `"1"`). */
export const truthy = (value: unknown): boolean => value === true || value === "true" || value === "1"

/** Joins given and family names as Supabase Auth does, without stray spaces. */
export const fullName = (...parts: ReadonlyArray<string | undefined>): string | undefined =>
  text(
    parts
      .filter((part) => part !== undefined)
      .join(" ")
      .trim()
  )

export const profileOf = (
  provider: string,
  claims: Claims,
  emails: ReadonlyArray<EmailCandidate>
): Effect.Effect<ProviderProfile, UpstreamLoginFailed> => {
  if (text(claims.sub) === undefined) {
    return Effect.fail(
      new UpstreamLoginFailed({
        message: `Login at ${provider} failed: the provider did not say who logged in`
      })
    )
  }
  const chosen = chooseEmail(emails.filter((candidate) => text(candidate.email) !== undefined))
  const email = Option.map(chosen, (candidate) => candidate.email)
  const emailVerified = Option.exists(chosen, (candidate) => candidate.verified)
  const data: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(claims)) {
    if (key === "custom_claims") continue
    const present = text(value)
    if (present !== undefined) data[key] = present
  }
  // Supabase Auth's deprecated `provider_id` is always the subject.
  data.provider_id = claims.sub
  if (Option.isSome(email)) data.email = email.value
  data.email_verified = emailVerified
  data.phone_verified = false
  if (claims.custom_claims !== undefined) data.custom_claims = claims.custom_claims
  return Effect.succeed({ provider, subject: claims.sub, email, emailVerified, data })
}
