import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { authenticate } from "../../../application/oauth/ClientAuthentication.js"
import { exchangeCode } from "../../../application/oauth/ExchangeCode.js"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

const codeOf = (url: URL) => Option.fromNullable(url.searchParams.get("code"))

describe("ClientAuthentication of a confidential client, on memory adapters", () => {
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
        authenticate({
          clientId: Option.some("web-app"),
          secret: Option.some(Redacted.make("nope")),
          assertion: Option.none()
        })
      )
      expect(Either.isLeft(wrong) && wrong.left.code).toBe("invalid_client")
      const authenticated = yield* authenticate({
        clientId: Option.some("web-app"),
        secret,
        assertion: Option.none()
      })
      const tokens = yield* exchangeCode(authenticated, {
        code: codeOf(back),
        redirectUri: Option.some("https://app.example.com/cb"),
        codeVerifier: Option.none()
      })
      expect(Option.isNone(tokens.refreshToken)).toBe(true)
    }).pipe(Effect.provide(Harness.layer))
  )
})
