import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import * as Browser from "../../support/oauth/OAuthBrowser.js"
import * as Server from "../../support/oauth/OAuthServerHarness.js"

const clientId = "web-app"
const secret = "a-confidential-client-secret-of-40-chars!"
const redirectUri = "https://app.example.com/oauth/callback"

const seed = ManageClients.create({
  name: "Web app",
  redirectUris: [redirectUri],
  confidential: true,
  clientId: Option.some(clientId),
  secret: Option.some(Redacted.make(secret))
})

const loginForCode = (baseUrl: string) =>
  Browser.login(
    Browser.authorizeUrl(baseUrl, {
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: "code",
      state: "s"
    })
  ).then((back) => back.searchParams.get("code") ?? "")

describe("the confidential-client flow over HTTP", () => {
  it.live(
    "authenticates with client_secret_basic and client_secret_post, and issues no refresh token",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Server.start({ seed: Effect.asVoid(seed) })
        yield* Effect.promise(async () => {
          const viaBasic = await Browser.form(
            baseUrl,
            "/token",
            {
              grant_type: "authorization_code",
              code: await loginForCode(baseUrl),
              redirect_uri: redirectUri
            },
            { authorization: Browser.basic(clientId, secret) }
          )
          expect(viaBasic.status).toBe(200)
          const basicTokens = await Browser.tokensOf(viaBasic)
          expect(basicTokens.refresh_token).toBeUndefined()

          const viaPost = await Browser.form(baseUrl, "/token", {
            grant_type: "authorization_code",
            code: await loginForCode(baseUrl),
            redirect_uri: redirectUri,
            client_id: clientId,
            client_secret: secret
          })
          expect(viaPost.status).toBe(200)
          expect((await Browser.tokensOf(viaPost)).refresh_token).toBeUndefined()

          const wrong = await Browser.form(
            baseUrl,
            "/token",
            {
              grant_type: "authorization_code",
              code: await loginForCode(baseUrl),
              redirect_uri: redirectUri
            },
            { authorization: Browser.basic(clientId, "not-the-secret") }
          )
          expect(wrong.status).toBe(401)
          expect(wrong.headers.get("www-authenticate")).toContain("Basic")
          expect((await Browser.errorOf(wrong)).error).toBe("invalid_client")

          const missing = await Browser.form(baseUrl, "/token", {
            grant_type: "authorization_code",
            code: await loginForCode(baseUrl),
            redirect_uri: redirectUri,
            client_id: clientId
          })
          expect(missing.status).toBe(401)
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
