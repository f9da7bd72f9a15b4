import type { User } from "../User.js"

/** `app_metadata` with `provider` listed in its `providers` (once), as Supabase Auth keeps it. */
export const withProvider = (appMetadata: User["appMetadata"], provider: string): User["appMetadata"] => {
  const listed = appMetadata.providers
  const providers = Array.isArray(listed) ? listed.filter((name) => typeof name === "string") : []
  return { ...appMetadata, providers: providers.includes(provider) ? providers : [...providers, provider] }
}
