import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { callback } from "../../../application/oauth/Callback.js"
import { authenticate } from "../../../application/oauth/ClientAuthentication.js"
import { exchangeCode } from "../../../application/oauth/ExchangeCode.js"
import { introspect } from "../../../application/oauth/Introspect.js"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import { revoke } from "../../../application/oauth/Revoke.js"
import * as FakeUpstream from "../../support/oauth/FakeUpstream.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

const codeOf = (url: URL) => Option.fromNullable(url.searchParams.get("code"))

describe("the public-client flow", () => {
  it.effect("authorize → upstream → callback → code → tokens → refresh → introspect → revoke", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const back = yield* Harness.loginFlow(client.id)
      expect(back.origin + back.pathname).toBe(Harness.redirectUri)
      expect(back.searchParams.get("state")).toBe("client-state")
      expect(back.searchParams.get("iss")).toBe(Harness.issuer)
      expect(back.searchParams.get("code")).toMatch(/^lkc_/)
      const authenticated = yield* authenticate({ clientId: Option.some(client.id), secret: Option.none() })
      const tokens = yield* exchangeCode(authenticated, {
        code: codeOf(back),
        redirectUri: Option.some(Harness.redirectUri),
        codeVerifier: Option.some(Harness.verifier)
      })
      expect(Redacted.value(tokens.accessToken)).toMatch(/^lka_/)
      expect(tokens.scope).toEqual(Option.some("openid email"))
      const info = yield* introspect(Redacted.value(tokens.accessToken), Option.none())
      expect(info).toMatchObject({
        active: true,
        kind: "access",
        clientId: client.id,
        resource: Option.some("https://api.example.com")
      })

      const refreshed = yield* Harness.refreshWith(client.id, Option.getOrThrow(tokens.refreshToken))
      const replay = yield* Effect.either(
        Harness.refreshWith(client.id, Option.getOrThrow(tokens.refreshToken))
      )
      expect(Either.isLeft(replay) && replay.left.code).toBe("invalid_grant")
      // The replay revoked the family: the rotated tokens are dead too.
      expect((yield* introspect(Redacted.value(refreshed.accessToken), Option.none())).active).toBe(false)
      const stale = yield* Effect.either(
        Harness.refreshWith(client.id, Option.getOrThrow(refreshed.refreshToken))
      )
      expect(Either.isLeft(stale)).toBe(true)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("a code redeemed twice is refused and revokes what the first redemption issued", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const back = yield* Harness.loginFlow(client.id)
      const authenticated = yield* authenticate({ clientId: Option.some(client.id), secret: Option.none() })
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
      const authenticated = yield* authenticate({ clientId: Option.some(client.id), secret: Option.none() })
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

  it.effect("revoking a refresh token revokes its family and access tokens; unknown tokens are fine", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const tokens = yield* Harness.publicLogin(client.id)
      expect(yield* revoke(client, "lkr_unknown", Option.none())).toBe(false)
      expect(
        yield* revoke(client, Redacted.value(Option.getOrThrow(tokens.refreshToken)), Option.none())
      ).toBe(true)
      expect((yield* introspect(Redacted.value(tokens.accessToken), Option.none())).active).toBe(false)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("another client cannot revoke a token", () =>
    Effect.gen(function* () {
      const owner = yield* Harness.publicClient
      const other = yield* Harness.publicClient
      const tokens = yield* Harness.publicLogin(owner.id)
      expect(yield* revoke(other, Redacted.value(tokens.accessToken), Option.none())).toBe(false)
      expect((yield* introspect(Redacted.value(tokens.accessToken), Option.none())).active).toBe(true)
    }).pipe(Effect.provide(Harness.layer))
  )
})

describe("the confidential-client flow", () => {
  it.effect("authenticates by secret, gets no refresh token, and a wrong secret is invalid_client", () =>
    Effect.gen(function* () {
      const { client, secret } = yield* ManageClients.create({
        name: "web",
        redirectUris: ["https://app.example.com/cb"],
        confidential: true,
        clientId: Option.some("web-app"),
        secret: Option.none()
      })
      const back = yield* Harness.loginFlow(client.id, {
        withPkce: false,
        redirect: "https://app.example.com/cb"
      })
      const wrong = yield* Effect.either(
        authenticate({ clientId: Option.some("web-app"), secret: Option.some(Redacted.make("nope")) })
      )
      expect(Either.isLeft(wrong) && wrong.left.code).toBe("invalid_client")
      const authenticated = yield* authenticate({ clientId: Option.some("web-app"), secret })
      const tokens = yield* exchangeCode(authenticated, {
        code: codeOf(back),
        redirectUri: Option.some("https://app.example.com/cb"),
        codeVerifier: Option.none()
      })
      expect(Option.isNone(tokens.refreshToken)).toBe(true)
    }).pipe(Effect.provide(Harness.layer))
  )
})

describe("authorize refusals", () => {
  const outcome = (params: Record<string, string>, duplicates: Array<string> = []) =>
    Harness.authorizeWith(params, { repeated: duplicates })

  it.effect("never redirects for an unknown client or an unregistered redirect URI", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const unknown = yield* outcome({
        client_id: "nope",
        redirect_uri: Harness.redirectUri,
        response_type: "code"
      })
      expect(unknown._tag === "ShowError" && unknown.error.code).toBe("invalid_client")
      const foreign = yield* outcome({
        client_id: client.id,
        redirect_uri: "https://evil.example/cb",
        response_type: "code"
      })
      expect(foreign._tag === "ShowError" && foreign.error.description).toContain("not registered")
      const twice = yield* outcome({ client_id: client.id, redirect_uri: Harness.redirectUri }, [
        "redirect_uri"
      ])
      expect(twice._tag).toBe("ShowError")
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("redirects other errors to the client with state and iss", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const base = { client_id: client.id, redirect_uri: Harness.redirectUri, state: "s1" }
      const cases: Array<[Record<string, string>, Array<string>, string]> = [
        [{ ...base, response_type: "token" }, [], "unsupported_response_type"],
        [{ ...base, response_type: "code" }, [], "invalid_request"],
        [
          { ...base, response_type: "code", code_challenge: "x".repeat(43), code_challenge_method: "plain" },
          [],
          "invalid_request"
        ],
        [
          {
            ...base,
            response_type: "code",
            code_challenge: "x".repeat(43),
            code_challenge_method: "S256",
            resource: "not a uri"
          },
          [],
          "invalid_target"
        ],
        [
          { ...base, response_type: "code", code_challenge: "x".repeat(43), code_challenge_method: "S256" },
          ["scope"],
          "invalid_request"
        ]
      ]
      for (const [params, duplicates, error] of cases) {
        const result = yield* outcome(params, duplicates)
        expect(result._tag).toBe("RedirectToClient")
        if (result._tag === "RedirectToClient") {
          const url = new URL(result.location)
          expect(url.searchParams.get("error")).toBe(error)
          expect(url.searchParams.get("state")).toBe("s1")
          expect(url.searchParams.get("iss")).toBe(Harness.issuer)
        }
      }
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("a callback with an unknown or reused state shows an error", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const started = yield* Harness.authorizeWith({
        client_id: client.id,
        redirect_uri: Harness.redirectUri,
        response_type: "code",
        code_challenge: "x".repeat(43),
        code_challenge_method: "S256"
      })
      if (started._tag !== "RedirectToUpstream")
        return yield* Effect.dieMessage("expected an upstream redirect")
      const callbackUrl = FakeUpstream.callbackFor(started.location, "ada@example.com")
      expect((yield* callback(callbackUrl))._tag).toBe("RedirectToClient")
      expect((yield* callback(callbackUrl))._tag).toBe("ShowError")
      expect((yield* callback(new URL("https://auth.example.com/callback?code=x")))._tag).toBe("ShowError")
    }).pipe(Effect.provide(Harness.layer))
  )
})
