import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { EndpointRefused, ProviderEndpoints } from "../../../application/auth/ports/ProviderEndpoints.js"
import { Discovery } from "../../../domain/auth/CustomProvider.js"
import * as Destination from "../../outbound/Destination.js"
import * as GuardedFetch from "../../outbound/GuardedFetch.js"
import * as PrivateAddresses from "../../outbound/PrivateAddresses.js"

export interface Settings {
  /**
   * The private addresses the operator allows (`AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`): a
   * custom provider inside the network, reached over https or plain http.
   */
  readonly allowedPrivateAddresses?: PrivateAddresses.AllowList | undefined
  /** Tests only: the resolver of host names. */
  readonly resolve?: Destination.Resolver | undefined
}

const refused = (message: string) => new EndpointRefused({ message })

/** The fields a discovery document must have for a sign-in, as Supabase Auth lists them. */
const required = ["issuer", "authorization_endpoint", "token_endpoint", "jwks_uri"] as const

const Document = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * A custom provider's URLs checked as the outbound guard will treat them, and its discovery
 * document fetched through the guard, with Supabase Auth's messages where it has them.
 */
export const layer = (settings: Settings = {}) => {
  const allowed = settings.allowedPrivateAddresses ?? PrivateAddresses.none
  const check = (text: string): Effect.Effect<void, EndpointRefused> =>
    Effect.gen(function* () {
      const url = URL.canParse(text) ? new URL(text) : undefined
      if (url === undefined) return yield* refused("Invalid URL format")
      // Plain http only where the guard takes it: at private addresses the operator lists.
      // Anywhere else it gets Supabase Auth's refusal of plain http, whatever the reason.
      const plain = url.protocol === "http:" && !PrivateAddresses.isEmpty(allowed)
      if (url.protocol !== "https:" && !plain) return yield* refused("URL must use HTTPS")
      if (url.hostname === "") return yield* refused("URL must have a valid hostname")
      yield* Destination.check(url, {
        allowedPrivateAddresses: allowed,
        resolve: settings.resolve ?? Destination.systemResolver
      }).pipe(
        Effect.catchTags({
          DestinationRefused: (error) =>
            Effect.fail(refused(plain ? "URL must use HTTPS" : `URL cannot be used: ${error.message}`)),
          DestinationUnreachable: () =>
            Effect.fail(refused(plain ? "URL must use HTTPS" : "Unable to resolve hostname"))
        })
      )
    })

  const discover = (discoveryUrl: string, issuer: string): Effect.Effect<Discovery, EndpointRefused> =>
    Effect.gen(function* () {
      const failed = (detail: string) =>
        refused(`OIDC discovery from ${JSON.stringify(discoveryUrl)} failed: ${detail}`)
      const response = yield* GuardedFetch.request(
        { url: discoveryUrl, headers: { accept: "application/json" } },
        {
          maxBytes: 256 * 1024,
          allowedPrivateAddresses: allowed,
          ...(settings.resolve === undefined ? {} : { resolve: settings.resolve })
        }
      ).pipe(
        Effect.mapError((error) =>
          failed(`oidc: discovery request to ${discoveryUrl} failed: ${error.message}`)
        )
      )
      if (response.status !== 200)
        return yield* failed(`oidc: discovery request to ${discoveryUrl} returned HTTP ${response.status}`)
      const parsed = yield* Either.match(
        Schema.decodeUnknownEither(Schema.parseJson(Document))(GuardedFetch.text(response)),
        {
          onLeft: () => Effect.fail(failed(`oidc: failed to decode discovery document from ${discoveryUrl}`)),
          onRight: Effect.succeed
        }
      )
      const named = typeof parsed.issuer === "string" ? parsed.issuer : ""
      if (named !== issuer)
        return yield* failed(
          `oidc: issuer mismatch, expected ${JSON.stringify(issuer)} got ${JSON.stringify(named)}`
        )
      const missing = required.filter((field) => typeof parsed[field] !== "string" || parsed[field] === "")
      if (missing.length > 0)
        return yield* refused(`OIDC discovery document is missing required fields: ${missing.join(", ")}`)
      const document = yield* Schema.decodeUnknown(Discovery, { onExcessProperty: "ignore" })(parsed).pipe(
        Effect.mapError((error) => failed(ParseResult.TreeFormatter.formatErrorSync(error)))
      )
      // The endpoints it names are kept and used at every sign-in: each must be one the
      // outbound guard will call, as the provider's own URLs must.
      const endpoints: ReadonlyArray<readonly [string, string | undefined]> = [
        ["authorization_endpoint", document.authorization_endpoint],
        ["token_endpoint", document.token_endpoint],
        ["jwks_uri", document.jwks_uri],
        ["userinfo_endpoint", document.userinfo_endpoint]
      ]
      for (const [field, endpoint] of endpoints) {
        if (endpoint === undefined) continue
        yield* check(endpoint).pipe(
          Effect.mapError((error) => refused(`OIDC discovery document's ${field}: ${error.message}`))
        )
      }
      return document
    })

  return Layer.succeed(ProviderEndpoints, { check, discover })
}
