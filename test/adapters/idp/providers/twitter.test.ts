import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as client from "openid-client"
import * as OAuth1Client from "../../../../adapters/idp/OAuth1Client.js"
import * as ProviderCatalog from "../../../../adapters/idp/ProviderCatalog.js"
import type { UpstreamRequest } from "../../../../application/ports/UpstreamIdentityProvider.js"
import * as TwitterFake from "../../../support/idp/TwitterFake.js"
import * as Allowed from "../../../support/outbound/Allowed.js"

const { consumerKey, consumerSecret, requestToken, accessToken, oauthParameters } = TwitterFake
const redirectUri = "https://auth.example.com/callback"

const newRequest = (): UpstreamRequest => ({
  state: client.randomState(),
  nonce: client.randomNonce(),
  codeVerifier: client.randomPKCECodeVerifier(),
  redirectUri
})

const startTwitter = Effect.gen(function* () {
  const fake = yield* TwitterFake.start
  const upstream = yield* ProviderCatalog.build("twitter", {
    clientId: consumerKey,
    clientSecret: Redacted.make(consumerSecret),
    endpointOrigin: fake.origin,
    allowedPrivateAddresses: Allowed.localhost
  })
  return { fake, upstream }
})

/** What the service does with an OAuth 1.0a authorization URL, then what Twitter sends back. */
const signIn = (upstream: ProviderCatalog.Upstream, request: UpstreamRequest) =>
  Effect.gen(function* () {
    const { url, handshake } = ProviderCatalog.takeHandshake(yield* upstream.authorizationUrl(request))
    const callback = new URL(redirectUri)
    callback.searchParams.set("state", request.state)
    callback.searchParams.set("oauth_token", url.searchParams.get("oauth_token") ?? "")
    callback.searchParams.set("oauth_verifier", TwitterFake.verifier)
    return { url, handshake, callback }
  })

describe("twitter provider (OAuth 1.0a) against a local fake", () => {
  it("signs as RFC 5849 and Twitter's documentation do (their worked example)", () => {
    const url = new URL("https://api.twitter.com/1.1/statuses/update.json?include_entities=true")
    const signature = OAuth1Client.signature(
      "POST",
      url,
      [
        ["status", "Hello Ladies + Gentlemen, a signed OAuth request!"],
        ["oauth_consumer_key", consumerKey],
        ["oauth_nonce", "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"],
        ["oauth_signature_method", "HMAC-SHA1"],
        ["oauth_timestamp", "1318622958"],
        ["oauth_token", "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"],
        ["oauth_version", "1.0"]
      ],
      consumerSecret,
      "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"
    )
    expect(signature).toBe("hCtSmYh+iHYCEqBWrE7C7hYmtUk=")
  })

  it.scoped(
    "request token, authenticate, access token with the sealed secret, profile and identity data",
    () =>
      Effect.gen(function* () {
        const { fake, upstream } = yield* startTwitter
        const request = newRequest()
        const { url, handshake, callback } = yield* signIn(upstream, request)

        expect(ProviderCatalog.traits("twitter").protocol).toBe("oauth1a")
        expect(`${url.origin}${url.pathname}`).toBe(`${fake.origin.origin}/oauth/authenticate`)
        expect(url.searchParams.get("oauth_token")).toBe(requestToken.key)
        expect(url.searchParams.has(OAuth1Client.handshakeParameter)).toBe(false)
        expect(Option.isSome(handshake)).toBe(true)
        // Sealed: neither the token's secret nor anything readable leaves our side.
        expect(Option.getOrElse(handshake, () => "")).not.toContain(requestToken.secret)
        const [asked] = fake.sent("POST /oauth/request_token")
        const callbackSent = new URL(
          oauthParameters(asked?.headers.authorization).get("oauth_callback") ?? ""
        )
        expect(callbackSent.searchParams.get("state")).toBe(request.state)

        const profile = yield* upstream.exchange(callback, {
          ...request,
          handshake: Option.getOrUndefined(handshake)
        })
        expect(profile.provider).toBe("twitter")
        expect(profile.subject).toBe(TwitterFake.profile.subject)
        expect(profile.email).toEqual(Option.some(TwitterFake.profile.email))
        expect(profile.emailVerified).toBe(TwitterFake.profile.emailVerified)
        expect(profile.data).toEqual(TwitterFake.profile.data)
        expect(profile.tokens === undefined ? undefined : Redacted.value(profile.tokens.accessToken)).toBe(
          accessToken.key
        )
        expect(profile.tokens?.refreshToken).toEqual(Option.none())
      })
  )

  it.scoped(
    "without this login's handshake, with another state or another request token, no exchange happens",
    () =>
      Effect.gen(function* () {
        const { fake, upstream } = yield* startTwitter
        const request = newRequest()
        const { handshake, callback } = yield* signIn(upstream, request)
        const kept = Option.getOrUndefined(handshake)

        const missing = yield* Effect.flip(upstream.exchange(callback, request))
        expect(missing.message).toMatch(/request token of this login/)
        // Another login's verifier cannot open this login's handshake.
        const foreign = yield* Effect.flip(
          upstream.exchange(callback, {
            ...request,
            codeVerifier: client.randomPKCECodeVerifier(),
            handshake: kept
          })
        )
        expect(foreign.message).toMatch(/request token of this login/)
        const otherState = new URL(callback)
        otherState.searchParams.set("state", client.randomState())
        expect(
          (yield* Effect.flip(upstream.exchange(otherState, { ...request, handshake: kept }))).message
        ).toMatch(/state/)
        const otherToken = new URL(callback)
        otherToken.searchParams.set("oauth_token", "someone-elses-token")
        expect(
          (yield* Effect.flip(upstream.exchange(otherToken, { ...request, handshake: kept }))).message
        ).toMatch(/request token/)
        const denied = new URL(redirectUri)
        denied.searchParams.set("state", request.state)
        denied.searchParams.set("denied", requestToken.key)
        expect(
          (yield* Effect.flip(upstream.exchange(denied, { ...request, handshake: kept }))).message
        ).toMatch(/did not authorize/)
        expect(fake.sent("POST /oauth/access_token")).toHaveLength(0)
      })
  )

  it.scoped("a refused consumer is a login failure naming the status, never the body", () =>
    Effect.gen(function* () {
      const { fake } = yield* startTwitter
      const upstream = yield* ProviderCatalog.build("twitter", {
        clientId: consumerKey,
        clientSecret: Redacted.make("not-the-secret"),
        endpointOrigin: fake.origin,
        allowedPrivateAddresses: Allowed.localhost
      })
      const error = yield* Effect.flip(upstream.authorizationUrl(newRequest()))
      expect(error.message).toBe("Asking twitter for a request token failed: HTTP 401")
    })
  )

  it("an OAuth 2.0 provider's URL has no handshake to take", () => {
    const url = new URL("https://accounts.google.com/o/oauth2/v2/auth?client_id=a&state=b")
    const taken = ProviderCatalog.takeHandshake(url)
    expect(taken.url.href).toBe(url.href)
    expect(taken.handshake).toEqual(Option.none())
  })
})
