import { existsSync } from "node:fs"
import { createServer } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Chromium from "../../support/Chromium.js"
import { freePort } from "../../support/FreePort.js"
import { testCertificate } from "../../support/oauth/DocumentServer.js"
import * as Browser from "../../support/oauth/OAuthBrowser.js"
import * as Server from "../../support/oauth/OAuthServerHarness.js"
import * as TcpProxy from "../../support/TcpProxy.js"

/**
 * The service as deployed: behind a proxy that terminates TLS, so its pages are https and its
 * BASE_URL says so. The browser trusts the test's certificate; the test itself talks to the
 * service directly.
 */
const behindTls = Effect.gen(function* () {
  const port = yield* freePort
  const proxy = yield* TcpProxy.make({ host: "127.0.0.1", port }, { tls: testCertificate() })
  const publicUrl = `https://127.0.0.1:${proxy.port}`
  const { baseUrl } = yield* Server.start({ env: { PORT: String(port), BASE_URL: publicUrl } })
  return { publicUrl, baseUrl }
})

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

describe("the consent page in a real browser, the service behind TLS", () => {
  it.live(
    "Allow sends the code on to a loopback listener over plain http",
    () =>
      Effect.gen(function* () {
        expect(existsSync(Chromium.path)).toBe(true)
        const { publicUrl, baseUrl } = yield* behindTls
        const listener = yield* loopbackListener
        const browser = yield* Chromium.scoped
        yield* Effect.promise(async () => {
          const clientId = await Browser.registerClient(baseUrl, ["http://127.0.0.1/callback"])
          const { verifier, challenge } = Browser.pkce()
          const context = await browser.newContext({ ignoreHTTPSErrors: true })
          const page = await context.newPage()
          const refused: Array<string> = []
          page.on("console", (message) => {
            if (message.text().includes("Content Security Policy")) refused.push(message.text())
          })
          await page.goto(
            Browser.authorizeUrl(publicUrl, {
              client_id: clientId,
              redirect_uri: listener.url,
              response_type: "code",
              code_challenge: challenge,
              code_challenge_method: "S256",
              state: "native"
            }).toString()
          )
          await page.fill('input[name="email"]', "ines@example.com")
          await Promise.all([page.waitForURL(`${publicUrl}/callback**`), page.click('button[type="submit"]')])
          expect(await page.textContent("h1")).toContain("to sign you in?")
          await Promise.all([page.waitForURL(`${listener.url}**`), page.click('button[value="approve"]')])
          expect(await page.textContent("#done")).toBe("You can close this tab")
          expect(refused).toEqual([])
          expect(listener.codes).toHaveLength(1)

          const tokens = await Browser.exchange(baseUrl, clientId, listener.url, {
            code: listener.codes[0] ?? "",
            verifier
          })
          expect(tokens.status).toBe(200)
          expect((await Browser.tokensOf(tokens)).access_token).toMatch(/^lka_/)
        })
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )
})
