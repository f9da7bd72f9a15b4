import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import {
  UpstreamLoginFailed,
  type UpstreamRequest
} from "../../../application/ports/UpstreamIdentityProvider.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as IdentityData from "../IdentityData.js"
import * as OAuth1Client from "../OAuth1Client.js"
import * as OAuthClient from "../OAuthClient.js"
import type { Credentials, ProviderEntry, ProviderTraits, Upstream } from "../ProviderEntry.js"

/**
 * Twitter (X) sign-in is OAuth 1.0a, as Supabase Auth does it: a request token is asked for
 * with our callback (carrying our `state`, as OAuth 1.0a has none of its own), the user is sent
 * to `/oauth/authenticate` with it, and the callback's `oauth_verifier` turns it into an access
 * token, with which `/1.1/account/verify_credentials.json` says who logged in. Twitter only
 * shares confirmed addresses, and only to apps allowed to ask.
 *
 * The request token's secret signs the access-token step, so it must outlive the redirect:
 * `authorizationUrl` seals it (see `OAuth1Client.seal`) into the URL's
 * `latchkey_handshake` parameter, which the service takes off (`ProviderCatalog.takeHandshake`),
 * keeps with the login and hands back as `UpstreamRequest.handshake`. The callback's
 * `oauth_token` must be the sealed one, which binds the callback to this login. A configured
 * URL is ignored. The provider token is the access token; its secret is not handed out.
 */

export const api = "https://api.twitter.com"
const profilePath = "/1.1/account/verify_credentials.json"
/** Supabase Auth records the profile endpoint as `iss`. */
export const issuer = `${api}${profilePath}`

export const User = Schema.Struct({
  id_str: Schema.String,
  screen_name: Schema.optional(Schema.NullOr(Schema.String)),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  profile_image_url_https: Schema.optional(Schema.NullOr(Schema.String)),
  email: Schema.optional(Schema.NullOr(Schema.String))
})
const decodeUser = Schema.decodeUnknown(Schema.parseJson(User))

export const profileOf = (user: typeof User.Type) => {
  const name = user.name ?? undefined
  const handle = user.screen_name ?? undefined
  const avatar = user.profile_image_url_https ?? undefined
  const email = IdentityData.text(user.email)
  return IdentityData.profileOf(
    "twitter",
    {
      iss: issuer,
      sub: user.id_str,
      name,
      full_name: name,
      preferred_username: handle,
      user_name: handle,
      picture: avatar,
      avatar_url: avatar
    },
    IdentityData.single(email, true)
  )
}

/** Our callback with our state in it: Twitter appends its own parameters and sends the user there. */
const callbackOf = (request: UpstreamRequest): string => {
  const callback = new URL(request.redirectUri)
  callback.searchParams.set("state", request.state)
  return callback.href
}

const failed = (message: string) =>
  new UpstreamLoginFailed({ message: `Login at twitter failed: ${message}` })

export const make = (credentials: Credentials): Effect.Effect<Upstream, UpstreamLoginFailed> =>
  Effect.gen(function* () {
    const at = (path: string) => OAuthClient.relocate(`${api}${path}`, credentials.endpointOrigin)
    yield* OAuthClient.checkTransport("twitter", "endpoint", at("/"))
    const guard = OAuthClient.guardOptions(credentials)
    const consumer: OAuth1Client.Credential = {
      key: credentials.clientId,
      secret: Redacted.value(credentials.clientSecret)
    }

    const authorizationUrl = (request: UpstreamRequest) =>
      Effect.gen(function* () {
        const context = "Asking twitter for a request token failed"
        const answer = yield* OAuth1Client.send(
          context,
          guard,
          "POST",
          at("/oauth/request_token"),
          consumer,
          Option.none(),
          {
            oauth_callback: callbackOf(request)
          }
        )
        const token = yield* OAuth1Client.tokenOf(context, answer)
        if (token.fields.get("oauth_callback_confirmed") !== "true") {
          return yield* new UpstreamLoginFailed({ message: `${context}: the callback was not confirmed` })
        }
        const url = at("/oauth/authenticate")
        url.searchParams.set("oauth_token", token.key)
        url.searchParams.set(
          OAuth1Client.handshakeParameter,
          OAuth1Client.seal(token, request.codeVerifier, request.state)
        )
        return url
      })

    const exchange = (callbackUrl: URL, request: UpstreamRequest) =>
      Effect.gen(function* () {
        const query = callbackUrl.searchParams
        if (query.has("denied")) return yield* failed("the user did not authorize the app")
        if (query.get("state") !== request.state)
          return yield* failed("the callback's state is not this login's")
        const sealed = Option.flatMap(Option.fromNullable(request.handshake), (handshake) =>
          OAuth1Client.unseal(handshake, request.codeVerifier, request.state)
        )
        if (Option.isNone(sealed))
          return yield* failed("the request token of this login is missing or unreadable")
        const requestToken = sealed.value
        const verifier = query.get("oauth_verifier")
        if (query.get("oauth_token") !== requestToken.key || verifier === null || verifier === "") {
          return yield* failed("the callback does not answer this login's request token")
        }
        const context = "Login at twitter failed"
        const answer = yield* OAuth1Client.send(
          context,
          guard,
          "POST",
          at("/oauth/access_token"),
          consumer,
          Option.some(requestToken),
          {},
          { oauth_verifier: verifier }
        )
        const access = yield* OAuth1Client.tokenOf(context, answer)
        const profileUrl = at(profilePath)
        profileUrl.searchParams.set("include_entities", "false")
        profileUrl.searchParams.set("skip_status", "true")
        profileUrl.searchParams.set("include_email", "true")
        const body = yield* OAuth1Client.send(
          `Reading ${profilePath} from twitter failed`,
          guard,
          "GET",
          profileUrl,
          consumer,
          Option.some(access)
        )
        const user = yield* Effect.mapError(decodeUser(body), () =>
          failed(`${profilePath} answered unexpectedly`)
        )
        const profile = yield* profileOf(user)
        yield* Telemetry.annotate("upstream.subject", profile.subject)
        return {
          ...profile,
          tokens: { accessToken: Redacted.make(access.key), refreshToken: Option.none() }
        }
      })

    const attributes = () => ({ "upstream.provider": "twitter" })
    return {
      name: "twitter",
      authorizationUrl: Telemetry.fn("TwitterProvider.authorizationUrl")(authorizationUrl, attributes),
      exchange: Telemetry.fn("TwitterProvider.exchange")(exchange, attributes)
    }
  })

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth1a",
  pkce: false,
  nonce: false,
  url: "ignored",
  parameters: {}
}

export const entry: ProviderEntry = { name: "twitter", traits, build: make }
