import { existsSync } from "node:fs"
import { createServer } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Browser } from "playwright-core"
import * as Chromium from "../../support/Chromium.js"
import * as OAuthBrowser from "../../support/oauth/OAuthBrowser.js"
import * as Server from "../../support/oauth/OAuthServerHarness.js"

/** A native app's loopback listener (RFC 8252 §7.3): it keeps the codes it is sent. */
const loopbackListener = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly codes: Array<string>; readonly close: () => void }>(
    (resume) => {
      const codes: Array<string> = []
      const server = createServer((request, response) => {
        const code = new URL(request.url ?? "/", "http://127.0.0.1").searchParams.get("code")
        if (code !== null) codes.push(code)
        response
          .writeHead(200, { "content-type": "text/html" })
          .end('<h1 id="done">You can close this tab</h1>')
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(
          Effect.succeed({ url: `http://127.0.0.1:${port}/callback`, codes, close: () => server.close() })
        )
      })
    }
  ),
  (listener) => Effect.sync(listener.close)
)

/**
 * One login in the browser up to our consent page: authorize at the public address, the dev
 * upstream's form, our callback. Returns the page, the verifier, and the CSP refusals it logs.
 */
const toConsent = async (
  browser: Browser,
  publicUrl: string,
  client: { readonly id: string; readonly redirectUri: string }
) => {
  const { verifier, challenge } = OAuthBrowser.pkce()
  const context = await browser.newContext({ ignoreHTTPSErrors: true })
  const page = await context.newPage()
  const refused: Array<string> = []
  page.on("console", (message) => {
    if (message.text().includes("Content Security Policy")) refused.push(message.text())
  })
  await page.goto(
    OAuthBrowser.authorizeUrl(publicUrl, {
      client_id: client.id,
      redirect_uri: client.redirectUri,
      response_type: "code",
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "native"
    }).toString()
  )
  await page.fill('input[name="email"]', "ines@example.com")
  await Promise.all([page.waitForURL(`${publicUrl}/callback**`), page.click('button[type="submit"]')])
  return { page, verifier, refused }
}

describe("the consent page in a real browser, the service behind TLS", () => {
  it.live(
    "Allow sends the code on to a loopback listener over plain http",
    () =>
      Effect.gen(function* () {
        expect(existsSync(Chromium.path)).toBe(true)
        const { publicUrl, baseUrl } = yield* Server.startBehindTls()
        const listener = yield* loopbackListener
        const browser = yield* Chromium.scoped
        yield* Effect.promise(async () => {
          const id = await OAuthBrowser.registerClient(baseUrl, ["http://127.0.0.1/callback"])
          const { page, verifier, refused } = await toConsent(browser, publicUrl, {
            id,
            redirectUri: listener.url
          })
          expect(await page.textContent(".warn")).toContain("a program running on this machine")
          await Promise.all([page.waitForURL(`${listener.url}**`), page.click('button[value="approve"]')])
          expect(await page.textContent("#done")).toBe("You can close this tab")
          expect(refused).toEqual([])
          expect(listener.codes).toHaveLength(1)

          const tokens = await OAuthBrowser.exchange(baseUrl, id, listener.url, {
            code: listener.codes[0] ?? "",
            verifier
          })
          expect(tokens.status).toBe(200)
          expect((await OAuthBrowser.tokensOf(tokens)).access_token).toMatch(/^lka_/)
        })
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  it.live(
    "Allow hands the code to the app that registered its own scheme, as Cursor does",
    () =>
      Effect.gen(function* () {
        const { publicUrl, baseUrl } = yield* Server.startBehindTls()
        const browser = yield* Chromium.scoped
        yield* Effect.promise(async () => {
          const redirectUri = "cursor://anysphere.cursor-mcp/oauth/callback"
          const id = await OAuthBrowser.registerClient(baseUrl, [redirectUri, "http://localhost/callback"])
          const { page, verifier, refused } = await toConsent(browser, publicUrl, { id, redirectUri })
          expect(await page.textContent(".warn")).toContain("the app that opens cursor: links")
          // Headless Chromium has no app for the scheme: the request it starts is the handover.
          const [handover] = await Promise.all([
            page.waitForRequest((request) => request.url().startsWith("cursor:")),
            page.click('button[value="approve"]')
          ])
          const back = new URL(handover.url())
          expect(handover.url().split("?")[0]).toBe(redirectUri)
          expect(back.searchParams.get("state")).toBe("native")
          expect(refused).toEqual([])

          const tokens = await OAuthBrowser.exchange(baseUrl, id, redirectUri, {
            code: back.searchParams.get("code") ?? "",
            verifier
          })
          expect(tokens.status).toBe(200)
          expect((await OAuthBrowser.tokensOf(tokens)).refresh_token).toMatch(/^lkr_/)
        })
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )
})
