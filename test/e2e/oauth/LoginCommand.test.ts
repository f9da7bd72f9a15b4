import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as OAuthLoginCommand from "../../../adapters/cli/oauth/LoginCommand.js"
import { freePort } from "../../support/FreePort.js"
import * as Browser from "../../support/oauth/OAuthBrowser.js"
import * as Server from "../../support/oauth/OAuthServerHarness.js"

/**
 * Plays the user's browser: our authorize endpoint, the dev upstream's login form
 * (`loginThroughForm`, inside `Browser.login`), our callback, and finally the redirect to the
 * CLI's loopback listener, whose page it returns.
 */
const browse = (authorizeUrl: URL) =>
  Effect.promise(async () => {
    const loopback = await Browser.login(authorizeUrl, "grace@example.com")
    const page = await fetch(loopback, { redirect: "manual" })
    return { loopback, status: page.status, body: await page.text() }
  })

describe("latchkey oauth login (the example CLI client)", () => {
  it.live("logs in through the built-in CLI client and introspects the new token", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* Server.start()
      let seen: { loopback: URL; status: number; body: string } | undefined
      const result = yield* OAuthLoginCommand.login({
        issuer: baseUrl,
        clientId: "cli",
        scope: Option.some("mcp:tools"),
        resource: Option.some("https://mcp.example.com"),
        introspectionSecret: Option.some(Redacted.make(Server.introspectionToken)),
        onAuthorizeUrl: (url) =>
          Effect.gen(function* () {
            expect(url.searchParams.get("client_id")).toBe("cli")
            expect(url.searchParams.get("code_challenge_method")).toBe("S256")
            expect(url.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
            seen = yield* browse(url)
          })
      })

      expect(seen?.status).toBe(200)
      expect(seen?.body).toContain("You can close this window")
      expect(seen?.loopback.searchParams.get("iss")).toBe(baseUrl)
      expect(result.tokens.access_token).toMatch(/^lka_/)
      expect(result.tokens.refresh_token).toMatch(/^lkr_/)
      expect(result.tokens.token_type.toLowerCase()).toBe("bearer")
      expect(result.tokens.expires_in).toBe(604800)
      expect(result.tokens.scope).toBe("mcp:tools")
      expect(Option.getOrUndefined(result.introspection)).toMatchObject({
        active: true,
        client_id: "cli",
        aud: "https://mcp.example.com",
        iss: baseUrl
      })
    }).pipe(Effect.scoped)
  )

  it.live("fails with a typed error naming the issuer when nothing answers there", () =>
    Effect.gen(function* () {
      const issuer = `http://127.0.0.1:${yield* freePort}`
      const exit = yield* Effect.exit(
        OAuthLoginCommand.login({
          issuer,
          clientId: "cli",
          scope: Option.none(),
          resource: Option.none(),
          introspectionSecret: Option.none(),
          onAuthorizeUrl: () => Effect.die("no authorization URL without discovery")
        })
      )
      expect(exit).toStrictEqual(
        Exit.fail(
          new OAuthLoginCommand.LoginFailed({
            message: `cannot discover ${issuer}: unreachable (ECONNREFUSED)`
          })
        )
      )
    })
  )

  it.live("refuses a plain-http issuer that is not on loopback, before any request", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        OAuthLoginCommand.login({
          issuer: "http://auth.example.com",
          clientId: "cli",
          scope: Option.none(),
          resource: Option.none(),
          introspectionSecret: Option.none(),
          onAuthorizeUrl: () => Effect.void
        })
      )
      expect(error._tag).toBe("LoginFailed")
      expect(error.message).toContain("http://auth.example.com")
    })
  )
})
