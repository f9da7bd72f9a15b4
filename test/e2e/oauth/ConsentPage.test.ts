import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { loginThroughForm } from "../../support/oauth/DevUpstreamLogin.js"
import * as Browser from "../../support/oauth/OAuthBrowser.js"
import * as Server from "../../support/oauth/OAuthServerHarness.js"

const redirectUri = "http://127.0.0.1:47000/callback"
const webRedirect = "https://connector.example.com/oauth/callback"

/** Registers a client and logs in at the upstream; returns our callback's answer. */
const toConsentPage = async (baseUrl: string, clientId: string, redirect = redirectUri) => {
  const { challenge } = Browser.pkce()
  const authorize = await fetch(
    Browser.authorizeUrl(baseUrl, {
      client_id: clientId,
      redirect_uri: redirect,
      response_type: "code",
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "st"
    }),
    { redirect: "manual" }
  )
  const callback = await loginThroughForm(new URL(authorize.headers.get("location") ?? ""), "lin@example.com")
  return { callback, page: await fetch(callback, { redirect: "manual" }) }
}

describe("the consent page over HTTP", () => {
  it.live(
    "is unframeable, warns about loopback redirects, and denial or a missing cookie never yield a code",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Server.start()
        yield* Effect.promise(async () => {
          const clientId = await Browser.registerClient(baseUrl, ["http://127.0.0.1/callback", webRedirect])
          const { callback, page } = await toConsentPage(baseUrl, clientId)
          expect(page.status).toBe(200)
          expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
          // The answer redirects to the client: its origin, scheme included (ConsentInBrowser).
          expect(page.headers.get("content-security-policy")).toContain(
            "form-action 'self' http://127.0.0.1:47000;"
          )
          expect(page.headers.get("x-frame-options")).toBe("DENY")
          const cookie = page.headers.getSetCookie().find((c) => c.startsWith("latchkey_consent="))
          expect(cookie).toMatch(/HttpOnly/i)
          expect(cookie).toMatch(/SameSite=Strict/i)
          const form = await Browser.consentForm(page)
          expect(form.html).toContain("e2e client")
          expect(form.html).toContain("127.0.0.1:47000")
          expect(form.html).toContain("program running on this machine")

          const withoutCookie = await Browser.submitConsent(
            callback,
            { token: form.token, cookie: "" },
            "approve"
          )
          expect(withoutCookie.status).toBe(400)
          expect(withoutCookie.headers.get("location")).toBeNull()

          const denied = await Browser.submitConsent(callback, form, "deny")
          expect(denied.status).toBe(302)
          const back = new URL(denied.headers.get("location") ?? "")
          expect(back.searchParams.get("error")).toBe("access_denied")
          expect(back.searchParams.get("state")).toBe("st")
          expect(back.searchParams.has("code")).toBe(false)

          const replayed = await Browser.submitConsent(callback, form, "approve")
          expect(replayed.status).toBe(400)

          // An approval for an https redirect is remembered; a loopback login asks again.
          const second = await toConsentPage(baseUrl, clientId, webRedirect)
          const approved = await Browser.submitConsent(
            second.callback,
            await Browser.consentForm(second.page),
            "approve"
          )
          expect(new URL(approved.headers.get("location") ?? "").searchParams.has("code")).toBe(true)
          const third = await toConsentPage(baseUrl, clientId, webRedirect)
          expect(third.page.status).toBe(302)
          const loopbackAgain = await toConsentPage(baseUrl, clientId)
          expect(loopbackAgain.page.status).toBe(200)
          expect((await Browser.consentForm(loopbackAgain.page)).html).toContain(
            "program running on this machine"
          )
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
