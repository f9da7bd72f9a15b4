import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { authenticate } from "../../../application/oauth/ClientAuthentication.js"
import { exchangeCode } from "../../../application/oauth/ExchangeCode.js"
import { introspect } from "../../../application/oauth/Introspect.js"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

const codeOf = (url: URL) => Option.fromNullable(url.searchParams.get("code"))

describe("ExchangeCode (POST /token, authorization_code), on memory adapters", () => {
  it.effect("a code redeemed twice is refused and revokes what the first redemption issued", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const back = yield* Harness.loginFlow(client.id)
      const authenticated = yield* authenticate({
        clientId: Option.some(client.id),
        secret: Option.none(),
        assertion: Option.none()
      })
      const request = {
        code: codeOf(back),
        redirectUri: Option.some(Harness.redirectUri),
        codeVerifier: Option.some(Harness.verifier)
      }
      const first = yield* exchangeCode(authenticated, request)
      const second = yield* Effect.either(exchangeCode(authenticated, request))
      expect(Either.isLeft(second) && second.left.code).toBe("invalid_grant")
      expect((yield* introspect(Redacted.value(first.accessToken), Option.none())).active).toBe(false)
      expect(
        (yield* introspect(Redacted.value(Option.getOrThrow(first.refreshToken)), Option.none())).active
      ).toBe(false)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("a wrong verifier burns the code", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const back = yield* Harness.loginFlow(client.id)
      const authenticated = yield* authenticate({
        clientId: Option.some(client.id),
        secret: Option.none(),
        assertion: Option.none()
      })
      const wrong = yield* Effect.either(
        exchangeCode(authenticated, {
          code: codeOf(back),
          redirectUri: Option.some(Harness.redirectUri),
          codeVerifier: Option.some("b".repeat(43))
        })
      )
      expect(Either.isLeft(wrong) && wrong.left.description).toBe("PKCE verification failed")
      const retry = yield* Effect.either(
        exchangeCode(authenticated, {
          code: codeOf(back),
          redirectUri: Option.some(Harness.redirectUri),
          codeVerifier: Option.some(Harness.verifier)
        })
      )
      expect(Either.isLeft(retry) && retry.left.code).toBe("invalid_grant")
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("redirect_uri may be left out where PKCE binds the code (OAuth 2.1), not otherwise", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const back = yield* Harness.loginFlow(client.id)
      const authenticated = yield* authenticate({
        clientId: Option.some(client.id),
        secret: Option.none(),
        assertion: Option.none()
      })
      const tokens = yield* exchangeCode(authenticated, {
        code: codeOf(back),
        redirectUri: Option.none(),
        codeVerifier: Option.some(Harness.verifier)
      })
      expect(Redacted.value(tokens.accessToken)).toMatch(/^lka_/)

      // A confidential client's code without a challenge: the redirect URI is what binds it.
      const { client: web, secret } = yield* ManageClients.create({
        name: "web",
        redirectUris: ["https://app.example.com/cb"],
        confidential: true,
        clientId: Option.none(),
        secret: Option.none()
      })
      const webBack = yield* Harness.loginFlow(web.id, {
        withPkce: false,
        redirect: "https://app.example.com/cb"
      })
      const webClient = yield* authenticate({
        clientId: Option.some(web.id),
        secret,
        assertion: Option.none()
      })
      const refused = yield* Effect.either(
        exchangeCode(webClient, {
          code: codeOf(webBack),
          redirectUri: Option.none(),
          codeVerifier: Option.none()
        })
      )
      expect(Either.isLeft(refused) && [refused.left.code, refused.left.description]).toEqual([
        "invalid_request",
        "redirect_uri is required for a code issued without code_challenge"
      ])
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("a resource at /token is the granted one, or restricts a grant that named none (RFC 8707)", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const authenticated = yield* authenticate({
        clientId: Option.some(client.id),
        secret: Option.none(),
        assertion: Option.none()
      })
      const exchange = (back: URL, resource: Option.Option<string>) =>
        exchangeCode(authenticated, {
          code: codeOf(back),
          redirectUri: Option.some(Harness.redirectUri),
          codeVerifier: Option.some(Harness.verifier),
          resource
        })
      const audienceOf = (tokens: { readonly accessToken: Redacted.Redacted<string> }) =>
        Effect.map(introspect(Redacted.value(tokens.accessToken), Option.none()), (info) =>
          info.active ? info.resource : Option.some("inactive")
        )

      const same = yield* exchange(
        yield* Harness.loginFlow(client.id),
        Option.some("https://api.example.com")
      )
      expect(yield* audienceOf(same)).toEqual(Option.some("https://api.example.com"))
      const other = yield* Effect.either(
        exchange(yield* Harness.loginFlow(client.id), Option.some("https://other.example/"))
      )
      expect(Either.isLeft(other) && [other.left.code, other.left.description]).toEqual([
        "invalid_target",
        "resource is not the one granted"
      ])
      const malformed = yield* Effect.either(
        exchange(yield* Harness.loginFlow(client.id), Option.some("https://api.example.com/#x"))
      )
      expect(Either.isLeft(malformed) && malformed.left.code).toBe("invalid_target")
      const open = yield* Harness.loginFlow(client.id, { resource: null })
      const restricted = yield* exchange(open, Option.some("https://other.example/"))
      expect(yield* audienceOf(restricted)).toEqual(Option.some("https://other.example/"))
      // The refresh token of that grant carries the restriction on.
      const refreshed = yield* Harness.refreshWith(client.id, Option.getOrThrow(restricted.refreshToken))
      expect(yield* audienceOf(refreshed)).toEqual(Option.some("https://other.example/"))
      const unrestricted = yield* exchange(
        yield* Harness.loginFlow(client.id, { resource: null }),
        Option.none()
      )
      expect(yield* audienceOf(unrestricted)).toEqual(Option.none())
    }).pipe(Effect.provide(Harness.layer))
  )
})
