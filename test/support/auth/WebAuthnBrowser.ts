import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { createRequire } from "node:module"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { CDPSession, Page } from "playwright-core"
import * as Chromium from "../Chromium.js"

/**
 * A real browser for WebAuthn end to end: Debian's Chromium through playwright-core, a page that
 * loads supabase-js's browser build (as an application's would), and a CDP virtual authenticator
 * (a platform authenticator with resident keys and user verification that always succeeds) in
 * place of a person with a fingerprint.
 *
 * WebAuthn runs only in a secure context; `http://localhost` is one, so the pages are served
 * from `http://localhost:<port>` and the relying party id is `localhost` (valid for every port:
 * an id is a host, never a port). Two origins are served: `origin`, which the service under test
 * should list in `WEBAUTHN_RP_ORIGINS`, and `otherOrigin` on another port, a page the browser
 * lets use the same relying party but the service must refuse.
 */

/** The relying party id the pages can use. */
export const relyingPartyId = "localhost"

/** supabase-js's browser build. */
const supabaseBundle = readFileSync(
  join(createRequire(import.meta.url).resolve("@supabase/supabase-js"), "../umd/supabase.js"),
  "utf8"
)

const pageHtml = `<!doctype html><html><head><meta charset="utf-8"><script src="/supabase.js"></script></head>
<body><p id="ready">loading</p></body></html>`

const serve = Effect.acquireRelease(
  Effect.promise(async () => {
    const server: Server = createServer((request, response) => {
      if (request.url === "/supabase.js") {
        response.writeHead(200, { "content-type": "text/javascript" }).end(supabaseBundle)
        return
      }
      response.writeHead(200, { "content-type": "text/html" }).end(pageHtml)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const address = server.address()
    if (address === null || typeof address === "string") throw new Error("the page server has no port")
    return { server, origin: `http://localhost:${address.port}` }
  }),
  ({ server }) => Effect.promise(() => new Promise((resolve) => server.close(resolve)))
)

/** A credential the virtual authenticator holds (CDP `WebAuthn.Credential`, the fields tests read). */
export interface HeldCredential {
  readonly credentialId: string
  readonly isResidentCredential: boolean
  readonly rpId?: string
  readonly userHandle?: string
  readonly signCount: number
}

/** A tab with the virtual authenticator and a supabase-js client in `window.client`. */
export interface WebAuthnPage {
  readonly page: Page
  /**
   * Loads the page at `origin` (the browser's `origin` by default) and creates
   * `window.client = supabase.createClient(url, key)` in it; sessions persist in the page's
   * `localStorage`, as in an application. The authenticator stays with the tab across loads.
   */
  readonly load: (origin?: string) => Promise<void>
  /**
   * Runs `body` in the page, the client as `client` (an async function body: `return await
   * client.auth.…`), with `arg` as `arg`. What it returns must be JSON.
   */
  readonly run: <R>(body: string, arg?: unknown) => Promise<R>
  /** The credentials the authenticator holds. */
  readonly credentials: () => Promise<ReadonlyArray<HeldCredential>>
  /** Makes the next ceremonies' user verification succeed or fail. */
  readonly setUserVerified: (verified: boolean) => Promise<void>
}

export interface WebAuthnBrowser {
  /** The origin to list in `WEBAUTHN_RP_ORIGINS`. */
  readonly origin: string
  /** Another origin under the same relying party id, not to list. */
  readonly otherOrigin: string
  /** A new tab (its own storage) with its own virtual authenticator, at `origin`. */
  readonly open: (service: { readonly url: string; readonly key: string }) => Promise<WebAuthnPage>
}

const addAuthenticator = async (cdp: CDPSession): Promise<string> => {
  await cdp.send("WebAuthn.enable", { enableUI: false })
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true
    }
  })
  return authenticatorId
}

/** Chromium, started for the scope, with the two page servers. */
export const launch: Effect.Effect<WebAuthnBrowser, never, Scope.Scope> = Effect.gen(function* () {
  const main = yield* serve
  const other = yield* serve
  const browser = yield* Chromium.scoped
  const open = async (service: { readonly url: string; readonly key: string }): Promise<WebAuthnPage> => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    const authenticatorId = await addAuthenticator(cdp)
    const load = async (origin: string = main.origin) => {
      await page.goto(`${origin}/`)
      await page.evaluate(
        ({ url, key }) => {
          const scope: {
            supabase?: { createClient: (url: string, key: string) => unknown }
            client?: unknown
          } = Object(globalThis)
          if (scope.supabase === undefined) throw new Error("supabase-js did not load")
          scope.client = scope.supabase.createClient(url, key)
        },
        { url: service.url, key: service.key }
      )
    }
    await load()
    return {
      page,
      load,
      run: <R>(body: string, arg?: unknown): Promise<R> =>
        page.evaluate(
          ({ body, arg }) => {
            const client: unknown = Object(globalThis).client
            // The body is the test's own code, run in the page as an application's script.
            const run = new Function("client", "arg", `return (async () => { ${body} })()`)
            return run(client, arg)
          },
          { body, arg }
        ),
      credentials: async () => {
        const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId })
        return credentials
      },
      setUserVerified: async (verified) => {
        await cdp.send("WebAuthn.setUserVerified", { authenticatorId, isUserVerified: verified })
      }
    }
  }
  return { origin: main.origin, otherOrigin: other.origin, open }
})
