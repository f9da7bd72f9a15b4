import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { authenticate } from "../../../application/oauth/ClientAuthentication.js"
import { exchangeCode } from "../../../application/oauth/ExchangeCode.js"
import { invalidRequest, OAuthError } from "../../../application/oauth/OAuthError.js"
import { refresh } from "../../../application/oauth/Refresh.js"
import type { TokenResponse } from "../../../application/oauth/TokenResponse.js"
import { type HttpRequest, header } from "../HttpMessage.js"
import * as ClientCredentials from "./ClientCredentials.js"
import * as Form from "./Form.js"
import { json } from "./Json.js"

/** RFC 6749 §5.1. */
const body = (tokens: TokenResponse) => ({
  access_token: Redacted.value(tokens.accessToken),
  token_type: "Bearer",
  expires_in: tokens.expiresIn,
  ...Option.match(tokens.refreshToken, {
    onNone: () => ({}),
    onSome: (t) => ({ refresh_token: Redacted.value(t) })
  }),
  ...Option.match(tokens.scope, { onNone: () => ({}), onSome: (scope) => ({ scope }) })
})

/** POST /token: the authorization code grant (RFC 6749 §4.1.3) and the refresh grant (§6). */
export const handle = (params: Form.Params, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    const grantType = Form.get(params, "grant_type")
    if (Option.isNone(grantType)) return yield* invalidRequest("grant_type is required")
    if (grantType.value !== "authorization_code" && grantType.value !== "refresh_token") {
      return yield* new OAuthError({
        code: "unsupported_grant_type",
        description: "grant_type must be authorization_code or refresh_token"
      })
    }
    const credentials = yield* ClientCredentials.fromRequest(header(request, "authorization"), params)
    const client = yield* authenticate(credentials)
    const tokens =
      grantType.value === "authorization_code"
        ? yield* exchangeCode(client, {
            code: Form.get(params, "code"),
            redirectUri: Form.get(params, "redirect_uri"),
            codeVerifier: Form.get(params, "code_verifier"),
            resource: Form.get(params, "resource")
          })
        : yield* refresh(client, {
            refreshToken: Form.get(params, "refresh_token"),
            scope: Form.get(params, "scope"),
            resource: Form.get(params, "resource")
          })
    return json(body(tokens))
  })
