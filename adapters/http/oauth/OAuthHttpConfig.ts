import * as Context from "effect/Context"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type { Limit } from "../../../application/ports/RateLimiter.js"

/** What the HTTP driver needs beyond the use cases' settings (`OAuthSettings`: the issuer). */
export class OAuthHttpConfig extends Context.Tag("latchkey/oauth/OAuthHttpConfig")<
  OAuthHttpConfig,
  {
    /** The build's version, for GET /health. */
    readonly version: string
    /** `INTROSPECTION_TOKEN`: none disables /introspect (404, not advertised). */
    readonly introspectionToken: Option.Option<Redacted.Redacted<string>>
    readonly registerLimit: Limit
    /** `SCOPES_SUPPORTED`: the scopes the metadata document advertises. */
    readonly scopesSupported: ReadonlyArray<string>
  }
>() {}
