import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Option from "effect/Option"
import type * as IdTokenIssuer from "../../../domain/auth/IdTokenIssuer.js"
import type { UpstreamIdentityProvider } from "../../ports/UpstreamIdentityProvider.js"

/** One enabled provider, built from its `EXTERNAL_<X>_*` variables. */
export interface ExternalProvider {
  /**
   * The provider's sign-in page and code exchange; or, for one enabled without a setting they
   * need, why not, in Supabase Auth's words (`missing OAuth secret`), which a sign-in through its
   * page is refused with. ID-token sign-ins need neither and work either way.
   */
  readonly upstream: Either.Either<Context.Tag.Service<typeof UpstreamIdentityProvider>, string>
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
  /**
   * The audiences its ID tokens may name (native sign-in): `EXTERNAL_<X>_CLIENT_ID`, or a custom
   * provider's client id and acceptable client ids.
   */
  readonly audiences: ReadonlyArray<string>
  /** The verified ID token's claims as the profile reads them (a custom provider's mapping). */
  readonly shapeClaims: (claims: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>>
  /** `EXTERNAL_<X>_SKIP_NONCE_CHECK`. */
  readonly skipNonceCheck: boolean
  /**
   * The issuer of the ID tokens an application may sign in with (`grant_type=id_token`); none
   * for providers whose ID tokens Supabase Auth does not take.
   */
  readonly idTokenIssuer: Option.Option<IdTokenIssuer.Rule>
  readonly takeHandshake: (url: URL) => { readonly url: URL; readonly handshake: Option.Option<string> }
}

/**
 * The providers a sign-in may name: those whose `EXTERNAL_<X>_ENABLED` is on, by key, and the
 * enabled custom providers of the admin API, by identifier (`custom:<name>`), read from the
 * database so every instance has the ones saved a moment ago.
 */
export class ExternalProviders extends Context.Tag("latchkey/auth/ExternalProviders")<
  ExternalProviders,
  {
    readonly find: (name: string) => Effect.Effect<Option.Option<ExternalProvider>>
  }
>() {}
