import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as AuthError from "../../../application/auth/AuthError.js"
import { AuthSettings } from "../../../application/auth/AuthSettings.js"
import {
  followLink,
  otherAddressPending,
  type VerifyRequest,
  verify
} from "../../../application/auth/Verify.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as ClientInfo from "./ClientInfo.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as JsonRequest from "./JsonRequest.js"
import { field } from "./JsonRequest.js"
import * as SessionJson from "./SessionJson.js"

const Body = Schema.Struct({
  type: field(Schema.String),
  token: field(Schema.String),
  token_hash: field(Schema.String),
  email: field(Schema.String),
  phone: field(Schema.String),
  redirect_to: field(Schema.String)
})

/** POST /verify — a mailed code or link token used (supabase-js `verifyOtp`): the session. */
export const handlePost = (request: HttpRequest) =>
  Effect.gen(function* () {
    const body = yield* JsonRequest.decode(Body)(request)
    const type = body.type ?? ""
    const verified = yield* verify({
      type,
      token: body.token ?? "",
      tokenHash: body.token_hash ?? "",
      email: body.email ?? "",
      phone: body.phone ?? "",
      client: ClientInfo.of(request)
    })
    if (verified._tag === "Waiting") {
      // Supabase Auth's answer, its status as a string.
      return HttpMessage.json({ msg: otherAddressPending, code: "200" })
    }
    // The spec names the verification type in the answer, beside Supabase Auth's session fields.
    return HttpMessage.json(SessionJson.encode(verified.grant, { type }))
  }).pipe(ErrorResponse.answering(request))

/** Supabase Auth's `error` of a redirect, by the status the same error has as a JSON answer. */
const oauthError = (status: number): string | undefined =>
  ({
    400: "invalid_request",
    401: "unauthorized_client",
    403: "access_denied",
    500: "server_error",
    503: "temporarily_unavailable"
  })[status]

/** `url` with `params` as its fragment (form-encoded, keys sorted, as Go encodes url.Values). */
const withFragment = (url: string, params: Record<string, string>) => {
  const fragment = new URLSearchParams(
    Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  ).toString()
  return `${url.split("#")[0]}#${fragment}`
}

const seeOther = (location: string) => HttpMessage.empty(303, { location })

/**
 * GET /verify — a mailed link followed: the token used up and the browser sent to `redirect_to`
 * (checked against the allow list, else `SITE_URL`) with the session in the fragment, as
 * Supabase Auth does (`access_token`, `expires_at`, `expires_in`, `refresh_token`,
 * `token_type`, `type`, and its `sb` marker), or, when one address of a secure email change
 * has confirmed, with Supabase Auth's note that the other must too. A token that does not work redirects with
 * `error`, `error_code` and `error_description` in the fragment; a request missing what a link
 * always has is answered as JSON, as there.
 */
export const handleGet = (request: HttpRequest) =>
  Effect.gen(function* () {
    const query = new URLSearchParams(request.query)
    const settings = yield* AuthSettings
    const target = settings.redirectTarget(query.get("redirect_to") ?? "")
    const type = query.get("type") ?? ""
    const verifyRequest: VerifyRequest = {
      type,
      token: query.get("token") ?? "",
      tokenHash: "",
      email: "",
      phone: "",
      client: ClientInfo.of(request)
    }
    return yield* followLink(verifyRequest).pipe(
      Effect.map((followed) => {
        if (followed._tag === "Waiting") {
          // As Supabase Auth: the note in the fragment, and in the query too in a PKCE flow.
          const url = new URL(target)
          if (followed.pkce) url.searchParams.set("message", otherAddressPending)
          return seeOther(withFragment(url.toString(), { message: otherAddressPending, sb: "" }))
        }
        if (followed._tag === "Code") {
          const url = new URL(target)
          url.searchParams.set("code", followed.code)
          return seeOther(url.toString())
        }
        const grant = followed.grant
        return seeOther(
          withFragment(target, {
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
        (error: AuthError.AuthError) => error.code !== "validation_failed",
        (error) => {
          const name = oauthError(error.status ?? ErrorResponse.statusOf[error.code])
          return Effect.succeed(
            seeOther(
              withFragment(target, {
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
  }).pipe(ErrorResponse.answering(request))
