import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as AuthError from "../../../application/auth/AuthError.js"
import { AuthSettings } from "../../../application/auth/AuthSettings.js"
import { followLink, otherAddressPending, type VerifyRequest } from "../../../application/auth/Verify.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as ClientInfo from "./ClientInfo.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Redirects from "./Redirects.js"
import type * as VerifyPage from "./VerifyPage.js"

const seeOther = (location: string) => HttpMessage.empty(303, { location })

/** The link's parameters from a query or a form body (the first of a repeated one, as Go reads them). */
export const linkOf = (params: URLSearchParams): VerifyPage.Link => ({
  type: params.get("type") ?? "",
  token: params.get("token") ?? "",
  redirectTo: params.get("redirect_to") ?? ""
})

export const verifyRequestOf = (link: VerifyPage.Link, request: HttpRequest): VerifyRequest => ({
  type: link.type,
  token: link.token,
  tokenHash: "",
  email: "",
  phone: "",
  client: ClientInfo.of(request)
})

/**
 * A mailed link used: the token used up and the browser sent to `redirect_to` (checked against
 * the allow list, else `SITE_URL`) with the session in the fragment, as Supabase Auth does
 * (`access_token`, `expires_at`, `expires_in`, `refresh_token`, `token_type`, `type`, and its
 * `sb` marker), or, when one address of a secure email change has confirmed, with Supabase
 * Auth's note that the other must too. A token that does not work redirects with `error`,
 * `error_code` and `error_description` in the fragment; a request missing what a link always
 * has is answered as JSON, as there.
 */
export const useLink = (link: VerifyPage.Link, request: HttpRequest) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const target = settings.redirectTarget(link.redirectTo)
    const type = link.type
    return yield* followLink(verifyRequestOf(link, request)).pipe(
      Effect.map((followed) => {
        if (followed._tag === "Waiting") {
          // As Supabase Auth: the note in the fragment, and in the query too in a PKCE flow.
          const url = new URL(target)
          if (followed.pkce) url.searchParams.set("message", otherAddressPending)
          return seeOther(Redirects.withFragment(url.toString(), { message: otherAddressPending, sb: "" }))
        }
        if (followed._tag === "Code") {
          const url = new URL(target)
          url.searchParams.set("code", followed.code)
          return seeOther(url.toString())
        }
        const grant = followed.grant
        return seeOther(
          Redirects.withFragment(target, {
            access_token: Redacted.value(grant.access.token),
            expires_at: String(grant.access.expiresAt),
            expires_in: String(grant.access.expiresIn),
            refresh_token: Redacted.value(grant.refreshToken),
            sb: "",
            token_type: "bearer",
            type
          })
        )
      }),
      Effect.catchIf(
        (reason: AuthError.AuthError) => ErrorResponse.describe(reason).code !== "validation_failed",
        (reason) => {
          const error = ErrorResponse.describe(reason)
          const name = Redirects.oauthError(error.status)
          return Effect.succeed(
            seeOther(
              Redirects.withFragment(target, {
                ...(name === undefined ? {} : { error: name }),
                error_code: error.code,
                error_description: error.message,
                sb: ""
              })
            )
          )
        }
      )
    )
  })
