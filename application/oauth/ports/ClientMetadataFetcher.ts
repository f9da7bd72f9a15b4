import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ClientMetadataDocument } from "../../../domain/oauth/ClientMetadataDocument.js"

/**
 * The document could not be had or is not acceptable: unreachable, refused by the SSRF guard,
 * too large, not JSON, or invalid. The reason is safe to log. `answer` says what the failure
 * means for the client: `down`, its publisher could not be reached or failed on its side (no
 * answer in time, a 5xx, a 429) and may well answer again, nothing it said taken back; `gone`,
 * the publisher says there is no such document (404, 410); `refused`, anything else.
 */
export class ClientMetadataUnavailable extends Schema.TaggedError<ClientMetadataUnavailable>()(
  "ClientMetadataUnavailable",
  {
    url: Schema.String,
    reason: Schema.String,
    answer: Schema.optionalWith(Schema.Literal("down", "gone", "refused"), { default: () => "refused" })
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
