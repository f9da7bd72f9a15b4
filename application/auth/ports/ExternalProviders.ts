import * as Context from "effect/Context"
import type * as Option from "effect/Option"
import type { UpstreamIdentityProvider } from "../../ports/UpstreamIdentityProvider.js"

/** One enabled provider, built from its `EXTERNAL_<X>_*` variables. */
export interface ExternalProvider {
  readonly upstream: Context.Tag.Service<typeof UpstreamIdentityProvider>
  /** `EXTERNAL_<X>_REDIRECT_URI`: our callback as registered at the provider. */
  readonly redirectUri: string
  /** `EXTERNAL_<X>_EMAIL_OPTIONAL`: a sign-in without an address is let through. */
  readonly emailOptional: boolean
  /**
   * Query parameters of `/authorize` the provider takes (WorkOS `connection`, …), mapped to the
   * provider's own name for each (`workos_provider` → `provider`).
   */
  readonly passThrough: Readonly<Record<string, string>>
  /**
   * What an OAuth 1.0a provider (Twitter) put on its authorization URL to be kept until the
   * callback (its request token's secret, sealed): the URL without it, and the value, which the
   * sign-in keeps and hands back at the exchange.
   */
  /** `EXTERNAL_<X>_CLIENT_ID`: the audience its ID tokens must name (native sign-in). */
  readonly clientId: string
  /** `EXTERNAL_<X>_SKIP_NONCE_CHECK`. */
  readonly skipNonceCheck: boolean
  /**
   * The issuer of the ID tokens an application may sign in with (`grant_type=id_token`); none
   * for providers whose ID tokens Supabase Auth does not take.
   */
  readonly idTokenIssuer: Option.Option<string>
  readonly takeHandshake: (url: URL) => { readonly url: URL; readonly handshake: Option.Option<string> }
}

/** The external providers whose `EXTERNAL_<X>_ENABLED` is on, by key. */
export class ExternalProviders extends Context.Tag("latchkey/auth/ExternalProviders")<
  ExternalProviders,
  {
    readonly find: (name: string) => Option.Option<ExternalProvider>
  }
>() {}
