import { Effect, Option, Redacted } from "effect"
import { authenticate } from "../../../application/oauth/ClientAuthentication.js"
import { exchangeCode } from "../../../application/oauth/ExchangeCode.js"
import { type Introspection, introspect } from "../../../application/oauth/Introspect.js"
import { invalidRequest, OAuthError } from "../../../application/oauth/OAuthError.js"
import { refresh } from "../../../application/oauth/Refresh.js"
import { type Registered, register } from "../../../application/oauth/Register.js"
import { revoke } from "../../../application/oauth/Revoke.js"
import type { TokenResponse } from "../../../application/oauth/TokenResponse.js"
import { constantTimeEqual } from "../../../domain/ConstantTime.js"
import { type ApiRequest, type ApiResponse, empty, json, noStore } from "./ApiMessage.js"
import * as ClientCredentials from "./ClientCredentials.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Form from "./Form.js"
import { OAuthHttpConfig } from "./OAuthHttpConfig.js"

/**
 * The machine endpoints: what CLI, MCP and server-side clients call with a small body and no
 * cookies — token, introspection, revocation and registration. They run on every request of a
 * busy deployment, so the node:http driver (ApiServer.ts) serves them without the platform's
 * router; the browser pages and the metadata document stay in Routes.ts.
 */
export const paths: ReadonlySet<string> = new Set(["/token", "/introspect", "/revoke", "/register"])

/** Browser-based clients call these endpoints cross-origin; none of them uses cookies. */
export const cors = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type",
  "access-control-max-age": "86400"
}

const refuseDuplicates = (params: Form.Params) => {
  const repeated = params.duplicates[0]
  return repeated === undefined ? Effect.void : Effect.fail(invalidRequest(`${repeated} is repeated`))
}

const header = (request: ApiRequest, name: string): string | undefined => {
  const value = request.headers[name]
  return typeof value === "string" ? value : undefined
}

const form = (request: ApiRequest) =>
  Effect.tap(Form.parseForm(header(request, "content-type"), request.body), refuseDuplicates)

const tokenBody = (tokens: TokenResponse) => ({
  access_token: Redacted.value(tokens.accessToken),
  token_type: "Bearer",
  expires_in: tokens.expiresIn,
  ...Option.match(tokens.refreshToken, {
    onNone: () => ({}),
    onSome: (t) => ({ refresh_token: Redacted.value(t) })
  }),
  ...Option.match(tokens.scope, { onNone: () => ({}), onSome: (scope) => ({ scope }) })
})

const token = (request: ApiRequest) =>
  Effect.gen(function* () {
    const params = yield* form(request)
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
            codeVerifier: Form.get(params, "code_verifier")
          })
        : yield* refresh(client, {
            refreshToken: Form.get(params, "refresh_token"),
            scope: Form.get(params, "scope")
          })
    return json(tokenBody(tokens))
  })

const seconds = (date: Date) => Math.floor(date.getTime() / 1000)

/** RFC 7662 §2.2. */
const introspectionBody = (info: Introspection) =>
  info.active
    ? {
        active: true,
        client_id: info.clientId,
        sub: info.userId,
        ...Option.match(info.scope, { onNone: () => ({}), onSome: (scope) => ({ scope }) }),
        ...Option.match(info.resource, { onNone: () => ({}), onSome: (aud) => ({ aud }) }),
        iss: info.issuer,
        exp: seconds(info.expiresAt),
        iat: seconds(info.issuedAt),
        token_type: info.kind === "access" ? "Bearer" : "refresh_token"
      }
    : { active: false }

/** RFC 7591 §3.2.1: the metadata as registered, with the client's id. */
const registrationBody = ({ client, grantTypes }: Registered) => ({
  client_id: client.id,
  client_id_issued_at: seconds(client.createdAt),
  client_name: client.name,
  redirect_uris: client.redirectUris,
  token_endpoint_auth_method: "none",
  grant_types: grantTypes,
  response_types: ["code"]
})

/** The client's address: a trusted proxy's header when RATE_LIMIT_HEADER names one, else the socket's. */
const sourceAddress = (request: ApiRequest, config: OAuthHttpConfig["Type"]) => {
  const fromHeader = Option.flatMap(config.rateLimitHeader, (name) =>
    Option.fromNullable(header(request, name.toLowerCase())?.split(",")[0]?.trim())
  )
  return Option.getOrElse(
    Option.orElse(fromHeader, () => Option.fromNullable(request.remoteAddress)),
    () => "unknown"
  )
}

const registration = (request: ApiRequest) =>
  Effect.gen(function* () {
    const body = yield* Form.parseJson(header(request, "content-type"), request.body)
    const config = yield* OAuthHttpConfig
    const registered = yield* register(body, sourceAddress(request, config), config.registerLimit)
    return json(registrationBody(registered), 201)
  })

const introspectionRefused = json(
  { error: "invalid_client", error_description: "present the introspection secret as a Bearer token" },
  401,
  { "www-authenticate": 'Bearer realm="latchkey"' }
)

const introspection = (request: ApiRequest) =>
  Effect.gen(function* () {
    const config = yield* OAuthHttpConfig
    if (Option.isNone(config.introspectionToken)) {
      return json({ error: "not_found", error_description: "introspection is disabled" }, 404)
    }
    const [scheme, presented] = (header(request, "authorization") ?? "").split(" ")
    if (
      scheme?.toLowerCase() !== "bearer" ||
      presented === undefined ||
      !constantTimeEqual(presented, Redacted.value(config.introspectionToken.value))
    ) {
      return introspectionRefused
    }
    const params = yield* form(request)
    const token = Form.get(params, "token")
    if (Option.isNone(token)) return yield* invalidRequest("token is required")
    return json(introspectionBody(yield* introspect(token.value, Form.get(params, "token_type_hint"))))
  })

const revocation = (request: ApiRequest) =>
  Effect.gen(function* () {
    const params = yield* form(request)
    const token = Form.get(params, "token")
    if (Option.isNone(token)) return yield* invalidRequest("token is required")
    const credentials = yield* ClientCredentials.fromRequest(header(request, "authorization"), params)
    const client = yield* authenticate(credentials)
    yield* revoke(client, token.value, Form.get(params, "token_type_hint"))
    return empty(200, noStore)
  })

const post = (request: ApiRequest) =>
  Effect.gen(function* () {
    switch (request.path) {
      case "/token":
        return yield* token(request)
      case "/register":
        return yield* registration(request)
      case "/introspect":
        return yield* introspection(request)
      default:
        return yield* revocation(request)
    }
  })

const withCors = (response: ApiResponse): ApiResponse => ({
  ...response,
  headers: { ...response.headers, ...cors }
})

/** Answers a request to one of `paths` with POST or OPTIONS; OAuth errors become their JSON body. */
export const handle = (request: ApiRequest) =>
  request.method === "OPTIONS"
    ? Effect.succeed(empty(204, cors))
    : post(request).pipe(
        Effect.catchTag("OAuthError", (error) => Effect.succeed(ErrorResponse.fromError(error))),
        Effect.map(withCors)
      )

/** The body of a request over `Form.maxBodyBytes`. */
export const bodyTooLarge = withCors(
  json({ error: "invalid_request", error_description: `the body exceeds ${Form.maxBodyBytes} bytes` }, 413)
)
