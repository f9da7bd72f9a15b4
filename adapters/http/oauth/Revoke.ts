import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { authenticate } from "../../../application/oauth/ClientAuthentication.js"
import { invalidRequest } from "../../../application/oauth/OAuthError.js"
import { revoke } from "../../../application/oauth/Revoke.js"
import { empty, type HttpRequest, header } from "../HttpMessage.js"
import * as ClientCredentials from "./ClientCredentials.js"
import * as Form from "./Form.js"
import { noStore } from "./Json.js"

/** POST /revoke (RFC 7009): 200 whether or not the token was known (§2.2). */
export const handle = (params: Form.Params, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    const token = Form.get(params, "token")
    if (Option.isNone(token)) return yield* invalidRequest("token is required")
    const credentials = yield* ClientCredentials.fromRequest(header(request, "authorization"), params)
    const client = yield* authenticate(credentials)
    yield* revoke(client, token.value, Form.get(params, "token_type_hint"))
    return empty(200, noStore)
  })
