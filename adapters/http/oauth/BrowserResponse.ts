import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { BrowserOutcome } from "../../../application/oauth/BrowserOutcome.js"
import { OAuthSettings } from "../../../application/oauth/OAuthSettings.js"
import * as Lifetimes from "../../../domain/oauth/Lifetimes.js"
import * as Cookies from "../Cookies.js"
import * as HttpMessage from "../HttpMessage.js"
import * as Pages from "./Pages.js"

/** A confidential web client's user's session with us (see `Client.keepsBrowserSession`). */
export const sessionCookie = "latchkey_session"

/** The consent page's CSRF token, also in its form (double submit). */
export const consentCookie = "latchkey_consent"

/** The consent cookie's path: it goes only with the answer to the consent page. */
export const consentPath = "/consent"

const redirect = (location: string) => HttpMessage.empty(302, { location, "cache-control": "no-store" })

/**
 * Where the browser goes next, as a page or a redirect with its cookies. Cookies are HttpOnly,
 * Secure when BASE_URL is https, and never readable by scripts.
 */
export const of = (outcome: BrowserOutcome) =>
  Effect.map(OAuthSettings, (settings): HttpMessage.HttpResponse => {
    const secure = settings.issuer.startsWith("https://")
    switch (outcome._tag) {
      case "ShowError":
        return Pages.error(outcome.error)
      case "ShowConsent":
        return Cookies.set(
          Pages.consent(outcome.prompt),
          consentCookie,
          Redacted.value(outcome.prompt.token),
          {
            httpOnly: true,
            secure,
            sameSite: "strict",
            path: consentPath,
            maxAge: Duration.minutes(10)
          }
        )
      case "RedirectToUpstream":
        return redirect(outcome.location)
      case "RedirectToClient": {
        const response = redirect(outcome.location)
        return outcome.session === undefined
          ? response
          : Cookies.set(response, sessionCookie, Redacted.value(outcome.session), {
              httpOnly: true,
              secure,
              // Lax: the next authorize arrives as a top-level navigation from the client's site.
              sameSite: "lax",
              path: "/",
              maxAge: Lifetimes.browserSession
            })
      }
    }
  })
