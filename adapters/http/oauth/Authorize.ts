import * as Effect from "effect/Effect"
import { authorize } from "../../../application/oauth/Authorize.js"
import type * as AuthorizationRequest from "../../../domain/oauth/AuthorizationRequest.js"
import * as Cookies from "../Cookies.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as BrowserResponse from "./BrowserResponse.js"
import * as Form from "./Form.js"

/** RFC 6749 §4.1.1 and RFC 7636 §4.3 parameter names, as the domain's typed request. */
export const parameters = (query: string): AuthorizationRequest.Parameters => {
  const params = Form.parse(query)
  const get = (name: string) => Form.get(params, name)
  return {
    clientId: get("client_id"),
    redirectUri: get("redirect_uri"),
    responseType: get("response_type"),
    codeChallenge: get("code_challenge"),
    codeChallengeMethod: get("code_challenge_method"),
    scope: get("scope"),
    resource: get("resource"),
    state: get("state"),
    repeated: params.duplicates
  }
}

/** The query of GET /, read into the domain's typed request. */
export const input = (request: HttpRequest) => Effect.succeed(parameters(request.query))

/** GET / — the authorize endpoint, in the user's browser. */
export const handle = (params: AuthorizationRequest.Parameters, _: undefined, request: HttpRequest) =>
  Effect.flatMap(authorize(params, Cookies.read(request, BrowserResponse.sessionCookie)), BrowserResponse.of)
