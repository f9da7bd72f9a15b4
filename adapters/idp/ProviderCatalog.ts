import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { UpstreamIdentityProvider } from "../../application/ports/UpstreamIdentityProvider.js"
import { externalProviderNames } from "../../domain/ExternalProviderNames.js"
import type { Credentials, ProviderEntry, ProviderTraits } from "./ProviderEntry.js"
import * as Apple from "./providers/apple.js"
import * as Azure from "./providers/azure.js"
import * as Bitbucket from "./providers/bitbucket.js"
import * as Discord from "./providers/discord.js"
import * as Facebook from "./providers/facebook.js"
import * as Figma from "./providers/figma.js"
import * as Fly from "./providers/fly.js"
import * as GitHub from "./providers/github.js"
import * as GitLab from "./providers/gitlab.js"
import * as Google from "./providers/google.js"
import * as Kakao from "./providers/kakao.js"
import * as Keycloak from "./providers/keycloak.js"
import * as LinkedIn from "./providers/linkedin.js"
import * as Notion from "./providers/notion.js"
import * as Oidc from "./providers/oidc.js"
import * as Slack from "./providers/slack.js"
import * as Snapchat from "./providers/snapchat.js"
import * as Spotify from "./providers/spotify.js"
import * as Twitch from "./providers/twitch.js"
import * as Twitter from "./providers/twitter.js"
import * as WorkOS from "./providers/workos.js"
import * as X from "./providers/x.js"
import * as Zoom from "./providers/zoom.js"

export { takeHandshake } from "./OAuth1Client.js"
export type { Credentials, ProviderEntry, ProviderTraits, Upstream } from "./ProviderEntry.js"

/**
 * The external providers (domain/ExternalProviderNames), as a schema. One file per provider
 * under `providers/`, as Supabase Auth has one per external provider; adding one is a file, a
 * line here and its name there.
 */
export const ExternalProviderName = Schema.Literal(...externalProviderNames)
export type ExternalProviderName = typeof ExternalProviderName.Type

/** Every provider we can log users in at: the external ones and any OpenID provider (`oidc`). */
export const ProviderName = Schema.Literal(...ExternalProviderName.literals, "oidc")
export type ProviderName = typeof ProviderName.Type

const catalog: { readonly [Name in ProviderName]: ProviderEntry } = {
  apple: Apple.entry,
  azure: Azure.entry,
  bitbucket: Bitbucket.entry,
  discord: Discord.entry,
  facebook: Facebook.entry,
  figma: Figma.entry,
  fly: Fly.entry,
  github: GitHub.entry,
  gitlab: GitLab.entry,
  google: Google.entry,
  kakao: Kakao.entry,
  keycloak: Keycloak.entry,
  linkedin: LinkedIn.entry,
  linkedin_oidc: LinkedIn.oidcEntry,
  notion: Notion.entry,
  oidc: Oidc.entry,
  slack: Slack.entry,
  slack_oidc: Slack.oidcEntry,
  snapchat: Snapchat.entry,
  spotify: Spotify.entry,
  twitch: Twitch.entry,
  twitter: Twitter.entry,
  workos: WorkOS.entry,
  x: X.entry,
  zoom: Zoom.entry
}

/** For a name read from configuration; `Option.none()` for a provider we do not know. */
export const find = (name: string): Option.Option<ProviderEntry> =>
  Schema.is(ProviderName)(name) ? Option.some(catalog[name]) : Option.none()

/**
 * What a service must know of a provider without building it: form_post callbacks, PKCE,
 * nonce, whether `EXTERNAL_<X>_URL` is needed, the sign-in parameters passed along.
 */
export const traits = (name: ProviderName): ProviderTraits => catalog[name].traits

export const build = (name: ProviderName, credentials: Credentials) => catalog[name].build(credentials)

/** One upstream as the port, for a service that logs users in at exactly one (the oauth service). */
export const layer = (name: ProviderName, credentials: Credentials) =>
  Layer.effect(UpstreamIdentityProvider, build(name, credentials))
