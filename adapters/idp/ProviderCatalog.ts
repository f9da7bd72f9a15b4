import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { UpstreamIdentityProvider } from "../../application/ports/UpstreamIdentityProvider.js"
import type { Credentials, ProviderEntry } from "./ProviderEntry.js"
import * as GitHub from "./providers/github.js"
import * as Google from "./providers/google.js"
import * as Oidc from "./providers/oidc.js"

export type { Credentials, ProviderEntry, Upstream } from "./ProviderEntry.js"

/**
 * The upstream identity providers we can log users in at, by the key recorded on identities.
 * One file per provider under `providers/`, as Supabase Auth has one per external provider;
 * adding one is a file and a line here.
 */
export const ProviderName = Schema.Literal("github", "google", "oidc")
export type ProviderName = typeof ProviderName.Type

const catalog: { readonly [Name in ProviderName]: ProviderEntry } = {
  github: GitHub.entry,
  google: Google.entry,
  oidc: Oidc.entry
}

/** For a name read from configuration; `Option.none()` for a provider we do not know. */
export const find = (name: string): Option.Option<ProviderEntry> =>
  Schema.is(ProviderName)(name) ? Option.some(catalog[name]) : Option.none()

export const build = (name: ProviderName, credentials: Credentials) => catalog[name].build(credentials)

/** One upstream as the port, for a service that logs users in at exactly one (the oauth service). */
export const layer = (name: ProviderName, credentials: Credentials) =>
  Layer.effect(UpstreamIdentityProvider, build(name, credentials))
