import * as Context from "effect/Context"
import type { ClientId } from "../../domain/Ids.js"

/** Deployment facts the oauth use cases need (from configuration). */
export class OAuthSettings extends Context.Tag("latchkey/oauth/OAuthSettings")<
  OAuthSettings,
  {
    /** Our issuer identifier: `BASE_URL` (RFC 8414 §2, RFC 9207). */
    readonly issuer: string
    /** Where the upstream sends users back: `BASE_URL/callback`. */
    readonly callbackUrl: string
    /** The built-in public CLI client seeded by `migrate`. */
    readonly cliClientId: ClientId
  }
>() {}
