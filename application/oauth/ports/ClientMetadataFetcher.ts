import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ClientMetadataDocument } from "../../../domain/oauth/ClientMetadataDocument.js"

/**
 * The document could not be had or is not acceptable: unreachable, refused by the SSRF guard,
 * too large, not JSON, or invalid. The reason is safe to log. `transient` when its publisher
 * could not be reached or failed on its side (no answer in time, a 5xx, a 429): it may well
 * answer again, and nothing it said has been taken back.
 */
export class ClientMetadataUnavailable extends Schema.TaggedError<ClientMetadataUnavailable>()(
  "ClientMetadataUnavailable",
  {
    url: Schema.String,
    reason: Schema.String,
    transient: Schema.optionalWith(Schema.Boolean, { default: () => false })
  }
) {}

/**
 * Fetches Client ID Metadata Documents. An implementation returns only documents that passed
 * `ClientMetadataDocument.validate` for the URL, and may serve them from a cache.
 */
export class ClientMetadataFetcher extends Context.Tag("latchkey/oauth/ClientMetadataFetcher")<
  ClientMetadataFetcher,
  {
    readonly fetch: (url: URL) => Effect.Effect<ClientMetadataDocument, ClientMetadataUnavailable>
  }
>() {}
