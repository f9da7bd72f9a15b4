import type * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type {
  UpstreamIdentityProvider,
  UpstreamLoginFailed
} from "../../application/ports/UpstreamIdentityProvider.js"

/** The port's service: what one entry of the catalog builds. */
export type Upstream = Context.Tag.Service<typeof UpstreamIdentityProvider>

/** What an operator registers at an upstream and configures here, once per provider. */
export interface Credentials {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** For providers without a fixed address (`oidc`); providers at a fixed address ignore it. */
  readonly issuerUrl?: URL
  /**
   * Every endpoint of the provider at this origin instead, paths kept: a local fake of the
   * provider in tests. Never set from configuration.
   */
  readonly endpointOrigin?: URL
}

export interface ProviderEntry {
  /** The provider key recorded on identities (`Upstream.name`). */
  readonly name: string
  /**
   * Checks the credentials without any network call, so a configuration that can never work
   * (no issuer, a plain-http issuer off this machine) fails at start-up rather than at the
   * first login. Network work (discovery) is deferred to the first login.
   */
  readonly build: (credentials: Credentials) => Effect.Effect<Upstream, UpstreamLoginFailed>
}
