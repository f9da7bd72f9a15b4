import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Browser from "../../support/oauth/OAuthBrowser.js"
import * as Server from "../../support/oauth/OAuthServerHarness.js"

describe("concurrent refreshes over HTTP", () => {
  it.live(
    "of 50 concurrent refreshes with one token exactly one succeeds",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Server.start()
        yield* Effect.promise(async () => {
          const redirectUri = "http://127.0.0.1:40000/callback"
          const grant = await Browser.codeFor(baseUrl, "cli", redirectUri)
          const tokens = await Browser.tokensOf(await Browser.exchange(baseUrl, "cli", redirectUri, grant))
          const responses = await Promise.all(
            Array.from({ length: 50 }, () =>
              Browser.form(baseUrl, "/token", {
                grant_type: "refresh_token",
                client_id: "cli",
                refresh_token: tokens.refresh_token ?? ""
              })
            )
          )
          const statuses = responses.map((r) => r.status)
          expect(statuses.filter((s) => s === 200)).toHaveLength(1)
          expect(statuses.filter((s) => s === 400)).toHaveLength(49)
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
