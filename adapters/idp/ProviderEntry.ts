import type * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type {
  UpstreamIdentityProvider,
  UpstreamLoginFailed
} from "../../application/ports/UpstreamIdentityProvider.js"
import type * as PrivateAddresses from "../outbound/PrivateAddresses.js"

/** The port's service: what one entry of the catalog builds. */
export type Upstream = Context.Tag.Service<typeof UpstreamIdentityProvider>

/** What an operator registers at an upstream and configures here, once per provider. */
export interface Credentials {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /**
   * The provider's own address, for providers without a fixed one: the issuer (`oidc`), the
   * realm (`keycloak`, `EXTERNAL_KEYCLOAK_URL`), the tenant (`azure`), the instance (`gitlab`,
   * `workos`). Providers at a fixed address ignore it.
   */
  readonly issuerUrl?: URL
  /**
   * Every endpoint of the provider at this origin instead, paths kept: a local fake of the
   * provider in tests. Never set from configuration.
   */
  readonly endpointOrigin?: URL
  /**
   * The private addresses the outbound guard may call (`PrivateAddresses`): the operator's
   * (`OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`, `AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`), for a
   * provider inside the network, and the dev upstream's own loopback address. Every call to a
   * provider goes through the guard, which refuses loopback and private addresses otherwise.
   */
  readonly allowedPrivateAddresses?: PrivateAddresses.AllowList
}

/**
 * What the auth service must know of a provider without building it: how the callback arrives,
 * what it must keep between the redirect and the callback, what it may pass along.
 */
export interface ProviderTraits {
  /** `form_post`: the provider POSTs the callback as a form (Apple); else a GET with a query. */
  readonly callback: "query" | "form_post"
  /** OAuth 2.0 with a code, or OAuth 1.0a with request tokens (Twitter). */
  readonly protocol: "oauth2" | "oauth1a"
  /** The provider checks our PKCE verifier (`UpstreamRequest.codeVerifier`). */
  readonly pkce: boolean
  /** The provider returns an ID token bound to our nonce (`UpstreamRequest.nonce`). */
  readonly nonce: boolean
  /** Whether `EXTERNAL_<X>_URL` (`Credentials.issuerUrl`) is needed, taken or ignored. */
  readonly url: "required" | "optional" | "ignored"
  /**
   * Query parameters of the sign-in request the provider takes, by their name there, mapped to
   * the provider's own name for them (`UpstreamRequest.parameters` holds the latter).
   */
  readonly parameters: Readonly<Record<string, string>>
}

/**
 * The traits of a plain OAuth 2.0 provider at a fixed address: the callback a GET with a query,
 * no PKCE, no ID token, no `EXTERNAL_<X>_URL`, no parameters passed along.
 */
export const plainOAuth2: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: false,
  nonce: false,
  url: "ignored",
  parameters: {}
}

export interface ProviderEntry {
  /** The provider key recorded on identities (`Upstream.name`). */
  readonly name: string
  readonly traits: ProviderTraits
  /**
   * Checks the credentials without any network call, so a configuration that can never work
   * (no issuer, a plain-http issuer off this machine) fails at start-up rather than at the
   * first login. Network work (discovery) is deferred to the first login.
   */
  readonly build: (credentials: Credentials) => Effect.Effect<Upstream, UpstreamLoginFailed>
  /**
   * For a provider whose ID tokens apps sign in with (`grant_type=id_token`) and whose tokens
   * stray from OpenID's standard claims (`name`, `email_verified`): its claims in that form, as
   * Supabase Auth reads them. Absent: the claims as they are.
   */
  readonly idTokenClaims?: (claims: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>>
}
