import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as client from "openid-client"
import {
  UpstreamLoginFailed,
  type UpstreamRequest
} from "../../application/ports/UpstreamIdentityProvider.js"
import * as Telemetry from "../../application/Telemetry.js"
import type { ProviderProfile } from "./IdentityData.js"
import * as OAuthClient from "./OAuthClient.js"
import type { Credentials, Upstream } from "./ProviderEntry.js"
import * as UpstreamFailure from "./UpstreamFailure.js"

/**
 * A plain OAuth 2.0 provider (no ID token): the code is redeemed through openid-client, then who
 * logged in is read from the provider's JSON API with the access token. Each provider file says
 * where its endpoints are, what it needs and how its answers map to a profile.
 */

/** What a provider's profile mapping may ask of the shared code. */
export interface Session {
  readonly tokens: client.TokenEndpointResponse
  /**
   * GETs a JSON resource of the provider with the access token as a bearer token (moved to
   * `Credentials.endpointOrigin` like every endpoint) and decodes the fields we keep.
   */
  readonly get: <A, I>(
    url: string | URL,
    schema: Schema.Schema<A, I>,
    headers?: Readonly<Record<string, string>>
  ) => Effect.Effect<A, UpstreamLoginFailed>
}

export interface Spec {
  /** The provider key recorded on identities. */
  readonly name: string
  readonly authorizationEndpoint: string
  readonly tokenEndpoint: string
  readonly scopes: ReadonlyArray<string>
  readonly clientAuthentication: OAuthClient.ClientAuthentication
  readonly pkce: boolean
  readonly parameters?: Readonly<Record<string, string>>
  readonly profile: (session: Session) => Effect.Effect<ProviderProfile, UpstreamLoginFailed>
}

/** Reads a JSON resource with a bearer token; a non-2xx answer is a failure naming its status. */
export const getJson = <A, I>(
  config: client.Configuration,
  provider: string,
  accessToken: string,
  url: URL,
  schema: Schema.Schema<A, I>,
  headers: Readonly<Record<string, string>> = {}
): Effect.Effect<A, UpstreamLoginFailed> => {
  const context = `Reading ${url.pathname} from ${provider} failed`
  const read = () =>
    Effect.tryPromise({
      try: async () => {
        const response = await client.fetchProtectedResource(
          config,
          accessToken,
          url,
          "GET",
          undefined,
          new Headers({ accept: "application/json", ...headers })
        )
        if (!response.ok) {
          await response.body?.cancel()
          throw UpstreamFailure.httpStatus(context, response.status)
        }
        return response.json()
      },
      catch: (cause) =>
        cause instanceof UpstreamLoginFailed ? cause : UpstreamFailure.failed(context)(cause)
    }).pipe(
      Effect.flatMap((body) =>
        Effect.mapError(
          Schema.decodeUnknown(schema)(body),
          () => new UpstreamLoginFailed({ message: `${context}: unexpected response` })
        )
      )
    )
  return Telemetry.fn("OAuth2Provider.get")(read, () => ({
    "upstream.provider": provider,
    "http.url": `${url.origin}${url.pathname}`
  }))()
}

export const make = (spec: Spec, credentials: Credentials): Effect.Effect<Upstream, UpstreamLoginFailed> =>
  Effect.gen(function* () {
    const origin = credentials.endpointOrigin
    const authorizationEndpoint = OAuthClient.relocate(spec.authorizationEndpoint, origin)
    const config = yield* OAuthClient.configuration(
      spec.name,
      {
        // openid-client needs an issuer identifier; plain OAuth 2.0 providers name none, and
        // ours is only compared with an `iss` a callback might carry.
        issuer: authorizationEndpoint.origin,
        authorization_endpoint: authorizationEndpoint.href,
        token_endpoint: OAuthClient.relocate(spec.tokenEndpoint, origin).href
      },
      credentials,
      spec.clientAuthentication
    )
    const attributes = () => ({ "upstream.provider": spec.name })

    const upstream: Upstream = {
      name: spec.name,
      authorizationUrl: Telemetry.fn("OAuth2Provider.authorizationUrl")(
        (request: UpstreamRequest) =>
          OAuthClient.authorizationUrl(config, request, {
            scope: spec.scopes,
            pkce: spec.pkce,
            nonce: false,
            ...(spec.parameters === undefined ? {} : { parameters: spec.parameters })
          }),
        attributes
      ),
      exchange: Telemetry.fn("OAuth2Provider.exchange")(
        (callbackUrl: URL, request: UpstreamRequest) =>
          Effect.gen(function* () {
            const tokens = yield* OAuthClient.codeGrant(
              config,
              callbackUrl,
              request,
              { pkce: spec.pkce },
              `Login at ${spec.name} failed`
            )
            const profile = yield* spec.profile({
              tokens,
              get: (url, schema, headers) =>
                getJson(
                  config,
                  spec.name,
                  tokens.access_token,
                  OAuthClient.relocate(url, origin),
                  schema,
                  headers
                )
            })
            yield* Telemetry.annotate("upstream.subject", profile.subject)
            return { ...profile, tokens: OAuthClient.providerTokens(tokens) }
          }),
        attributes
      )
    }
    return upstream
  })
