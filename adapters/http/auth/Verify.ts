import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as AuthError from "../../../application/auth/AuthError.js"
import { AuthSettings } from "../../../application/auth/AuthSettings.js"
import {
  check,
  followLink,
  otherAddressPending,
  type VerifyRequest,
  verify
} from "../../../application/auth/Verify.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import { AuthHttpConfig } from "./AuthHttpConfig.js"
import * as AuthJson from "./AuthJson.js"
import * as ClientInfo from "./ClientInfo.js"
import * as Endpoint from "./Endpoint.js"
import { field } from "./Endpoint.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Redirects from "./Redirects.js"
import * as VerifyPage from "./VerifyPage.js"

const Body = Schema.Struct({
  type: field(Schema.String),
  token: field(Schema.String),
  token_hash: field(Schema.String),
  email: field(Schema.String),
  phone: field(Schema.String),
  redirect_to: field(Schema.String)
})

/** The body of the confirmation page's form (VerifyPage), which POST /verify takes beside JSON. */
export const formType = "application/x-www-form-urlencoded"

/** POST /verify as supabase-js `verifyOtp` sends it: a mailed code or link token used, the session. */
const verifyJson = (body: typeof Body.Type, request: HttpRequest) =>
  Effect.gen(function* () {
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
    return HttpMessage.json(AuthJson.session(verified.grant, { type }))
  })

const seeOther = (location: string) => HttpMessage.empty(303, { location })

/** The link's parameters from a query or a form body (the first of a repeated one, as Go reads them). */
const linkOf = (params: URLSearchParams): VerifyPage.Link => ({
  type: params.get("type") ?? "",
  token: params.get("token") ?? "",
  redirectTo: params.get("redirect_to") ?? ""
})

const verifyRequestOf = (link: VerifyPage.Link, request: HttpRequest): VerifyRequest => ({
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
const useLink = (link: VerifyPage.Link, request: HttpRequest) =>
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

/** What POST /verify reads: the confirmation page's form, or JSON. */
export type PostInput =
  | { readonly _tag: "Form"; readonly link: VerifyPage.Link }
  | { readonly _tag: "Json"; readonly body: typeof Body.Type }

const decodeJson = Endpoint.body(Body)

/**
 * The body of POST /verify: the confirmation page's form by its media type, else JSON (Supabase
 * Auth reads any body as JSON, so every other type goes that way too).
 */
export const postInput = (request: HttpRequest) =>
  HttpMessage.mediaType(HttpMessage.header(request, "content-type")) === formType
    ? Effect.succeed<PostInput>({ _tag: "Form", link: linkOf(new URLSearchParams(request.body)) })
    : Effect.map(decodeJson(request), (body): PostInput => ({ _tag: "Json", body }))

/**
 * POST /verify: supabase-js `verifyOtp`, or the confirmation page's form, answered as GET
 * /verify answers a link it uses.
 */
export const handlePost = (input: PostInput, _: undefined, request: HttpRequest) =>
  input._tag === "Form" ? useLink(input.link, request) : verifyJson(input.body, request)

/** The link of GET /verify, from its query. */
export const getInput = (request: HttpRequest) => Effect.succeed(linkOf(new URLSearchParams(request.query)))

/**
 * GET /verify — a mailed link followed. As Supabase Auth, it uses the link (`useLink`), unless
 * nobody can have followed it: a HEAD or a browser's prefetch (VerifyPage.isPrefetch) never
 * uses a token. With `MAILER_LINK_CONFIRMATION_PAGE` no GET uses one: mail scanners and link
 * previews open every link of a mail, and the person would find theirs used up. They all get
 * the confirmation page instead, whose button posts the link back (`handlePost`); a link that
 * could never work (no type, an unknown type, no token) is answered as following it would be.
 * The page tells nothing of the token: it is not looked up until the press.
 */
export const handleGet = (link: VerifyPage.Link, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    const config = yield* AuthHttpConfig
    if (!config.linkConfirmationPage && request.method === "GET" && !VerifyPage.isPrefetch(request)) {
      return yield* useLink(link, request)
    }
    yield* check(verifyRequestOf(link, request))
    const settings = yield* AuthSettings
    return VerifyPage.render(link, settings.redirectTarget(link.redirectTo))
  })
