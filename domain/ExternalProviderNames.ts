/**
 * The external providers, by the key recorded on identities and shown under `external` in the
 * auth service's /settings answer: the spec's eighteen, the two keys Supabase Auth gives the
 * same LinkedIn and Slack sign-ins (`linkedin_oidc`, `slack_oidc`), and the further providers
 * Supabase Auth and supabase-js know (`fly`, `kakao`, `x`, `zoom`). The provider catalog has one entry for
 * each (adapters/idp), which both services build their upstreams from.
 */
export const externalProviderNames = [
  "apple",
  "azure",
  "bitbucket",
  "discord",
  "facebook",
  "figma",
  "fly",
  "github",
  "gitlab",
  "google",
  "kakao",
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
  "workos",
  "x",
  "zoom"
] as const

export type ExternalProviderName = (typeof externalProviderNames)[number]
