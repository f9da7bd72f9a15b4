import { existsSync, readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { createRequire } from "node:module"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as ProviderUpstream from "../../support/auth/ProviderUpstream.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as Chromium from "../../support/Chromium.js"
import { freePort } from "../../support/FreePort.js"

const clientId = "latchkey-auth"
const clientSecret = "a-client-secret-of-the-auth-service"

/** supabase-js's browser build, as an application's page would load it. */
const supabaseBundle = readFileSync(
  join(createRequire(import.meta.url).resolve("@supabase/supabase-js"), "../umd/supabase.js"),
  "utf8"
)

let scope: Scope.CloseableScope
let baseUrl = ""
let anonKey = ""
let app: Server
let appUrl = ""

/**
 * The application: one page that lets supabase-js read the session from the redirect's fragment
 * (`detectSessionInUrl`, its default in a browser) and shows who is signed in.
 */
const startApp = async () => {
  const page = `<!doctype html><html><head><meta charset="utf-8"><script src="/supabase.js"></script></head>
<body><p id="who">reading the session…</p><script>
  const client = supabase.createClient(${JSON.stringify(baseUrl)}, ${JSON.stringify(anonKey)})
  client.auth.getSession().then(({ data, error }) => {
    document.getElementById("who").textContent = error ? "error: " + error.message
      : data.session ? "signed in as " + data.session.user.email + " via " + data.session.user.app_metadata.provider
      : "no session"
  })
</script></body></html>`
  app = createServer((request, response) => {
    if (request.url === "/supabase.js") {
      response.writeHead(200, { "content-type": "text/javascript" }).end(supabaseBundle)
      return
    }
    response.writeHead(200, { "content-type": "text/html" }).end(page)
  })
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve))
  const address = app.address()
  if (address === null || typeof address === "string") throw new Error("no port")
  appUrl = `http://127.0.0.1:${address.port}`
}

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const port = await Effect.runPromise(freePort)
  const upstream = await ProviderUpstream.start(scope, {
    authPort: port,
    clientId,
    clientSecret,
    keycloakPaths: true
  })
  anonKey = await SupabaseClientSupport.apiKey("anon")
  baseUrl = `http://127.0.0.1:${port}`
  await startApp()
  await Effect.runPromise(
    Scope.extend(
      AuthServerHarness.start({
        port,
        env: {
          AUTHSVC_URI_ALLOW_LIST: `${appUrl}/**`,
          AUTHSVC_EXTERNAL_KEYCLOAK_ENABLED: "true",
          AUTHSVC_EXTERNAL_KEYCLOAK_CLIENT_ID: clientId,
          AUTHSVC_EXTERNAL_KEYCLOAK_SECRET: clientSecret,
          AUTHSVC_EXTERNAL_KEYCLOAK_URL: upstream.issuer.href,
          AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1"
        }
      }),
      scope
    )
  )
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await new Promise((resolve) => app.close(resolve))
})

describe("sign-in with a provider in a real browser", () => {
  it("signInWithOAuth's URL, the provider's login form, and the application's page reads the session with supabase-js", async () => {
    expect(existsSync(Chromium.path)).toBe(true)
    const browser = await Chromium.launch()
    try {
      const page = await browser.newPage()
      const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
      const started = await supabase.auth.signInWithOAuth({
        provider: "keycloak",
        options: { redirectTo: `${appUrl}/welcome`, skipBrowserRedirect: true }
      })
      await page.goto(started.data.url ?? "")
      await page.fill('input[name="email"]', "grace@example.com")
      await Promise.all([page.waitForURL(`${appUrl}/welcome**`), page.click('button[type="submit"]')])
      // The page's own script settles the text once supabase-js has read the session.
      await page.waitForSelector("#who:text-matches('^(signed in|error|no session)')")
      expect(await page.textContent("#who")).toBe("signed in as grace@example.com via keycloak")
    } finally {
      await browser.close()
    }
  })
})
