import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { CallbackOutcome } from "../../../application/auth/ExternalCallback.js"
import * as HttpMessage from "../HttpMessage.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Redirects from "./Redirects.js"

/** The redirect back to the application, its referrer withheld. */
export const found = (location: string) =>
  HttpMessage.empty(302, { location, "cache-control": "no-store", "referrer-policy": "no-referrer" })

/** Where the browser goes, as Supabase Auth writes each outcome. */
export const locationOf = (outcome: CallbackOutcome): string => {
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
      const error = ErrorResponse.describe(outcome.error)
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
                  : (error.oauthError ?? Redirects.oauthError(error.status) ?? "server_error"),
              error_code: error.code,
              error_description: error.message
            }
      const url = new URL(outcome.target)
      for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
      return Redirects.withFragment(url.toString(), { ...params, sb: "" })
    }
  }
}
