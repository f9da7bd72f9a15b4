import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as RedirectUri from "../../domain/oauth/RedirectUri.js"
import * as ClientRedirect from "./ClientRedirect.js"
import { OAuthError, type OAuthErrorCode } from "./OAuthError.js"

/** What the consent page shows; the token goes into the form and, for CSRF, into a cookie. */
export interface ConsentPrompt {
  readonly token: Redacted.Redacted<string>
  readonly clientId: string
  readonly clientName: string
  /** Where the answer sends the browser: the redirect URI presented at authorize. */
  readonly redirectUri: string
  /** Loopback and app-scheme redirects deliver the code to whatever program claims them here. */
  readonly destination: RedirectUri.Destination
  readonly scope: Option.Option<string>
}

/** Where the browser goes next from the authorize, callback and consent endpoints. */
export type BrowserOutcome =
  /** The client or redirect URI cannot be trusted: show the error, never redirect (RFC 6749 §4.1.2.1). */
  | { readonly _tag: "ShowError"; readonly error: OAuthError }
  | { readonly _tag: "ShowConsent"; readonly prompt: ConsentPrompt }
  | {
      readonly _tag: "RedirectToClient"
      readonly location: string
      /** A new browser session to set as a cookie (confidential web clients). */
      readonly session?: Redacted.Redacted<string>
    }
  | { readonly _tag: "RedirectToUpstream"; readonly location: string }

/** The client or its redirect URI cannot be trusted: the error is shown on our own page. */
export const showError = (code: OAuthErrorCode, description: string): BrowserOutcome => ({
  _tag: "ShowError",
  error: new OAuthError({ code, description })
})

/**
 * An error sent back to a trusted redirect URI (RFC 6749 §4.1.2.1), with the client's state and
 * our issuer (RFC 9207).
 */
export const errorToClient = (
  redirectUri: string,
  error: { readonly code: OAuthErrorCode; readonly description: string },
  state: string | undefined,
  issuer: string
): BrowserOutcome => ({
  _tag: "RedirectToClient",
  location: ClientRedirect.build(redirectUri, {
    error: error.code,
    error_description: error.description,
    state,
    iss: issuer
  })
})
