import { Context, type Option, type Redacted } from "effect"
import type { Limit } from "../../../application/ports/RateLimiter.js"

/** What the HTTP driver needs beyond the use cases' settings (`OAuthSettings`: the issuer). */
export class OAuthHttpConfig extends Context.Tag("latchkey/http/oauth/OAuthHttpConfig")<
  OAuthHttpConfig,
  {
    /** `INTROSPECTION_TOKEN`: none disables /introspect (404, not advertised). */
    readonly introspectionToken: Option.Option<Redacted.Redacted<string>>
    readonly registerLimit: Limit
    /** `RATE_LIMIT_HEADER`: a trusted proxy's header carrying the client address. */
    readonly rateLimitHeader: Option.Option<string>
  }
>() {}
