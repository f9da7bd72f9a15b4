import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { otherAddressPending, verify } from "../../../application/auth/Verify.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as AuthJson from "./AuthJson.js"
import * as ClientInfo from "./ClientInfo.js"
import * as Endpoint from "./Endpoint.js"
import { field } from "./Endpoint.js"
import { linkOf, useLink } from "./VerifyLink.js"
import type * as VerifyPage from "./VerifyPage.js"

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

/** What POST /verify reads: the confirmation page's form, or JSON. */
export type Input =
  | { readonly _tag: "Form"; readonly link: VerifyPage.Link }
  | { readonly _tag: "Json"; readonly body: typeof Body.Type }

const decodeJson = Endpoint.body(Body)

/**
 * The body of POST /verify: the confirmation page's form by its media type, else JSON (Supabase
 * Auth reads any body as JSON, so every other type goes that way too).
 */
export const input = (request: HttpRequest) =>
  HttpMessage.mediaType(HttpMessage.header(request, "content-type")) === formType
    ? Effect.succeed<Input>({ _tag: "Form", link: linkOf(new URLSearchParams(request.body)) })
    : Effect.map(decodeJson(request), (body): Input => ({ _tag: "Json", body }))

/**
 * POST /verify: supabase-js `verifyOtp`, or the confirmation page's form, answered as GET
 * /verify (FollowVerifyLink) answers a link it uses.
 */
export const handle = (input: Input, _: undefined, request: HttpRequest) =>
  input._tag === "Form" ? useLink(input.link, request) : verifyJson(input.body, request)
