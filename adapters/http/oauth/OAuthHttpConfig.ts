import { Context, type Option, type Redacted } from "effect"
import type { Limit } from "../../../application/ports/RateLimiter.js"

/** What the HTTP driver needs beyond the use cases' settings (`OAuthSettings`: the issuer). */
export class OAuthHttpConfig extends Context.Tag("latchkey/oauth/OAuthHttpConfig")<
  OAuthHttpConfig,
  {
    /** `INTROSPECTION_TOKEN`: none disables /introspect (404, not advertised). */
    readonly introspectionToken: Option.Option<Redacted.Redacted<string>>
    readonly registerLimit: Limit
    /** `SCOPES_SUPPORTED`: the scopes the metadata document advertises. */
    readonly scopesSupported: ReadonlyArray<string>
  }
>() {}
