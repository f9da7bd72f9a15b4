import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { AuthSettings } from "../../../application/auth/AuthSettings.js"
import { type CallbackOutcome, callback } from "../../../application/auth/ExternalCallback.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as ClientInfo from "./ClientInfo.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Redirects from "./Redirects.js"

const found = (location: string) =>
  HttpMessage.empty(302, { location, "cache-control": "no-store", "referrer-policy": "no-referrer" })

/** Where the browser goes, as Supabase Auth writes each outcome. */
const locationOf = (outcome: CallbackOutcome): string => {
  switch (outcome._tag) {
    case "Code": {
      const url = new URL(outcome.target)
      url.searchParams.set("code", outcome.code)
      return url.toString()
    }
    case "Session": {
      const { grant } = outcome
      const tokens = Option.getOrUndefined(outcome.providerTokens)
      const refresh = tokens === undefined ? undefined : Option.getOrUndefined(tokens.refreshToken)
      return Redirects.withFragment(outcome.target, {
        access_token: Redacted.value(grant.access.token),
        expires_at: String(grant.access.expiresAt),
        expires_in: String(grant.access.expiresIn),
        // The spec's rule 14 names the provider; Supabase Auth writes no `provider`.
        provider: outcome.provider,
        ...(tokens === undefined ? {} : { provider_token: Redacted.value(tokens.accessToken) }),
        ...(refresh === undefined ? {} : { provider_refresh_token: Redacted.value(refresh) }),
        refresh_token: Redacted.value(grant.refreshToken),
        // Supabase Auth's mark of its own redirects, as in every fragment it writes.
        sb: "",
        token_type: "bearer"
      })
    }
    case "Failed": {
      const { error } = outcome
      // A provider's own refusal keeps its words and has no code of ours; the rest are ours.
      const params: Record<string, string> =
        error.oauthError !== undefined && error.code === "bad_oauth_callback"
          ? { error: error.oauthError, error_description: error.message }
          : {
              error:
                error.code === "signup_disabled" ||
                error.code === "user_banned" ||
                error.code === "provider_email_needs_verification"
                  ? "access_denied"
                  : (error.oauthError ??
                    Redirects.oauthError(error.status ?? ErrorResponse.statusOf[error.code]) ??
                    "server_error"),
              error_code: error.code,
              error_description: error.message
            }
      const url = new URL(outcome.target)
      for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
      return Redirects.withFragment(url.toString(), { ...params, sb: "" })
    }
  }
}

/**
 * The URL the provider sent the browser back to: GET /callback's query, and for providers that
 * answer with a form (Apple's `form_post`) the POSTed fields, read as the query would be.
 */
export const url = (request: HttpRequest) =>
  Effect.map(AuthSettings, (settings) => {
    const url = new URL(`${settings.externalUrl}/callback`)
    url.search = request.query
    if (request.method === "POST") {
      for (const [key, value] of new URLSearchParams(request.body)) {
        if (!url.searchParams.has(key)) url.searchParams.append(key, value)
      }
    }
    return url
  })

/**
 * GET and POST /callback: the provider sends the browser back; 302 to the application with the
 * session in the fragment, `?code=` in the PKCE flow, or the error in the query and the
 * fragment, as Supabase Auth does.
 */
export const handle = (url: URL, _: undefined, request: HttpRequest) =>
  Effect.map(callback({ url, client: ClientInfo.of(request) }), (outcome) => found(locationOf(outcome)))
