import { existsSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import * as Chromium from "../../support/Chromium.js"
import * as Browser from "../../support/oauth/OAuthBrowser.js"
import * as OAuthServer from "../../support/oauth/OAuthServerHarness.js"

const clientId = "browser-web-app"
const clientSecret = "browser-web-app-secret-0123456789abcdef"

/**
 * The confidential web client's own backend on loopback: it receives the code at /cb and
 * exchanges it server-side with its secret (client_secret_basic), as a real web app does.
 */
const startWebApp = (baseUrl: () => string) =>
  Effect.acquireRelease(
    Effect.async<{ server: Server; url: string; codes: Array<string> }>((resume) => {
      const codes: Array<string> = []
      const server = createServer((request, response) => {
        const url = new URL(request.url ?? "/", "http://127.0.0.1")
        const code = url.searchParams.get("code")
        if (url.pathname !== "/cb" || code === null) {
          response.writeHead(404).end()
          return
        }
        codes.push(code)
        Browser.form(
          baseUrl(),
          "/token",
          { grant_type: "authorization_code", code, redirect_uri: `http://127.0.0.1:${port()}/cb` },
          { authorization: Browser.basic(clientId, clientSecret) }
        )
          .then(async (token) => {
            const ok = token.status === 200 && (await Browser.tokensOf(token)).access_token.startsWith("lka_")
            response
              .writeHead(200, { "content-type": "text/html" })
              .end(`<h1 id="result">${ok ? "signed in" : "failed"}</h1>`)
          })
          .catch(() => response.writeHead(500).end())
      })
      const port = () => {
        const address = server.address()
        return typeof address === "object" && address !== null ? address.port : 0
      }
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ server, url: `http://127.0.0.1:${port()}`, codes }))
      )
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  )

/**
 * The whole flow against a service `serve` starts: `publicUrl` is where the browser goes,
 * `baseUrl` where the web app's backend exchanges its codes.
 */
const webFlow = (
  serve: (
    options: Parameters<typeof OAuthServer.start>[0]
  ) => Effect.Effect<{ readonly baseUrl: string; readonly publicUrl: string }, never, Scope.Scope>,
  secure: boolean
) =>
  Effect.gen(function* () {
    expect(existsSync(Chromium.path)).toBe(true)
    let base = ""
    const app = yield* startWebApp(() => base)
    const { baseUrl, publicUrl } = yield* serve({
      seed: Effect.asVoid(
        ManageClients.create({
          name: "Browser web app",
          redirectUris: [`${app.url}/cb`],
          confidential: true,
          clientId: Option.some(clientId),
          secret: Option.some(Redacted.make(clientSecret))
        })
      )
    })
    base = baseUrl
    const browser = yield* Chromium.scoped
    yield* Effect.promise(async () => {
      const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage()
      const visited: Array<string> = []
      page.on("request", (request) => {
        if (request.isNavigationRequest()) visited.push(request.url())
      })
      const authorize = Browser.authorizeUrl(publicUrl, {
        client_id: clientId,
        redirect_uri: `${app.url}/cb`,
        response_type: "code",
        state: "browser"
      }).toString()

      await page.goto(authorize)
      await page.fill('input[name="email"]', "margaret@example.com")
      await Promise.all([page.waitForURL(`${app.url}/cb**`), page.click('button[type="submit"]')])
      expect(await page.textContent("#result")).toBe("signed in")
      const upstreamOrigin = new URL(
        visited.find((u) => !u.startsWith(publicUrl) && !u.startsWith(app.url)) ?? ""
      ).origin
      expect(upstreamOrigin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const cookies = await page.context().cookies(publicUrl)
      const session = cookies.find((c) => c.name === "latchkey_session")
      expect(session?.httpOnly).toBe(true)
      expect(session?.sameSite).toBe("Lax")
      expect(session?.secure).toBe(secure)

      visited.length = 0
      await page.goto(authorize)
      await page.waitForURL(`${app.url}/cb**`)
      expect(await page.textContent("#result")).toBe("signed in")
      expect(visited.some((u) => u.startsWith(upstreamOrigin))).toBe(false)
      expect(app.codes).toHaveLength(2)
    })
  }).pipe(Effect.scoped)

describe("the confidential web flow in a real browser", () => {
  it.live(
    "logs in through the upstream form, then a second authorize skips the upstream via the session cookie",
    () =>
      webFlow(
        (options) =>
          Effect.map(OAuthServer.start(options), (running) => ({ ...running, publicUrl: running.baseUrl })),
        false
      ),
    { timeout: 90_000 }
  )

  it.live(
    "does the same with the service behind TLS, its session cookie Secure",
    () => webFlow(OAuthServer.startBehindTls, true),
    { timeout: 90_000 }
  )
})
