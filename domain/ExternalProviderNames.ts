/**
 * The external providers of the spec, by the key recorded on identities and shown under
 * `external` in the auth service's /settings answer, and the two keys Supabase Auth gives the
 * same LinkedIn and Slack sign-ins (`linkedin_oidc`, `slack_oidc`), which its clients use. The provider catalog has one entry for
 * each (adapters/idp), which both services build their upstreams from.
 */
export const externalProviderNames = [
  "apple",
  "azure",
  "bitbucket",
  "discord",
  "facebook",
  "figma",
  "github",
  "gitlab",
  "google",
  "keycloak",
  "linkedin",
  "linkedin_oidc",
  "notion",
  "slack",
  "slack_oidc",
  "snapchat",
  "spotify",
  "twitch",
  "twitter",
  "workos"
] as const

export type ExternalProviderName = (typeof externalProviderNames)[number]
