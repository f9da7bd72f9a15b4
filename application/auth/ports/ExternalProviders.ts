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
  /** Query parameters of `/authorize` the provider takes (WorkOS `connection`, …). */
  readonly passThrough: ReadonlyArray<string>
}

/** The external providers whose `EXTERNAL_<X>_ENABLED` is on, by key. */
export class ExternalProviders extends Context.Tag("latchkey/auth/ExternalProviders")<
  ExternalProviders,
  {
    readonly find: (name: string) => Option.Option<ExternalProvider>
  }
>() {}
