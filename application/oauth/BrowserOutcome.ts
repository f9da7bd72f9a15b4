import type { Option, Redacted } from "effect"
import type { OAuthError } from "./OAuthError.js"

/** What the consent page shows; the token goes into the form and, for CSRF, into a cookie. */
export interface ConsentPrompt {
  readonly token: Redacted.Redacted<string>
  readonly clientId: string
  readonly clientName: string
  readonly redirectHost: string
  /** Loopback redirects deliver the code to whatever program listens on this machine. */
  readonly loopback: boolean
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
