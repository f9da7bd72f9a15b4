import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as AuthError from "../../../application/auth/AuthError.js"
import { exchangeCode } from "../../../application/auth/ExchangeCode.js"
import { signInWithIdToken } from "../../../application/auth/IdTokenSignIn.js"
import { refreshSession } from "../../../application/auth/RefreshSession.js"
import { signInWithPassword } from "../../../application/auth/SignInWithPassword.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as AuthJson from "./AuthJson.js"
import * as ClientInfo from "./ClientInfo.js"
import { bearerToken, field } from "./Endpoint.js"
import * as Refusal from "./Refusal.js"

export const PasswordBody = Schema.Struct({
  email: field(Schema.String),
  phone: field(Schema.String),
  password: field(Schema.String)
})
export const RefreshBody = Schema.Struct({ refresh_token: field(Schema.String) })
export const PkceBody = Schema.Struct({
  auth_code: field(Schema.String),
  code_verifier: field(Schema.String)
})
export const IdTokenBody = Schema.Struct({
  id_token: field(Schema.String),
  access_token: field(Schema.String),
  nonce: field(Schema.String),
  provider: field(Schema.String),
  client_id: field(Schema.String),
  issuer: field(Schema.String),
  link_identity: field(Schema.Boolean)
})

/*
 * POST /token: each `?grant_type=` is an endpoint of its own in the route table (Routes.ts),
 * with its captcha and the `RATE_LIMIT_TOKEN_REFRESH` count per client address, as Supabase Auth
 * reads the grant type from the query (`r.FormValue`, a JSON body having no form values) before
 * anything else. Supabase Auth checks the captcha of every grant but `pkce`, `refresh_token` and
 * `id_token`, an unknown grant type included, and refuses an unknown one before counting it.
 */

/** `grant_type=password` — supabase-js `signInWithPassword`. */
export const password = (body: typeof PasswordBody.Type, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    const { grant, weakPassword } = yield* signInWithPassword({
      email: body.email ?? "",
      phone: body.phone ?? "",
      password: body.password ?? "",
      client: ClientInfo.of(request)
    })
    const weak = Option.match(weakPassword, {
      onNone: () => ({}),
      onSome: (weak) => ({ weak_password: { reasons: weak.reasons, message: weak.message } })
    })
    return HttpMessage.json(AuthJson.session(grant, weak))
  })

/** `grant_type=refresh_token` — every session refresh of supabase-js. */
export const refresh = (body: typeof RefreshBody.Type) =>
  Effect.map(refreshSession(body.refresh_token ?? ""), (grant) => HttpMessage.json(AuthJson.session(grant)))

/** `grant_type=pkce`: the code a followed mail link or a provider sign-in handed out, for a session (ExchangeCode). */
export const pkce = (body: typeof PkceBody.Type, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    const exchanged = yield* exchangeCode(
      body.auth_code ?? "",
      body.code_verifier ?? "",
      ClientInfo.of(request)
    )
    const tokens = Option.getOrUndefined(exchanged.providerTokens)
    const refresh = tokens === undefined ? undefined : Option.getOrUndefined(tokens.refreshToken)
    return HttpMessage.json(
      AuthJson.session(exchanged.grant, {
        ...(tokens === undefined ? {} : { provider_token: Redacted.value(tokens.accessToken) }),
        ...(refresh === undefined ? {} : { provider_refresh_token: Redacted.value(refresh) })
      })
    )
  })

/**
 * `grant_type=id_token` — sign-in with an ID token from a provider's own SDK (supabase-js
 * `signInWithIdToken`), or with `link_identity` the token's identity linked to the signed-in
 * user (`linkIdentity({ provider, token })`), whose access token is the bearer; no
 * `Authorization` at all is Supabase Auth's own refusal, a malformed one its usual 401.
 */
export const idToken = (body: typeof IdTokenBody.Type, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    const authorization = HttpMessage.header(request, "authorization") ?? ""
    const grant = yield* signInWithIdToken({
      provider: body.provider ?? "",
      idToken: body.id_token ?? "",
      nonce: body.nonce ?? "",
      clientId: body.client_id ?? "",
      issuer: body.issuer ?? "",
      client: ClientInfo.of(request),
      linkIdentity:
        body.link_identity === true
          ? Option.some(
              authorization === ""
                ? Either.left(new AuthError.LinkingWithoutAccessToken())
                : yield* Effect.either(bearerToken(request))
            )
          : Option.none()
    })
    return HttpMessage.json(AuthJson.session(grant))
  })

/** `grant_type=web3`: Supabase Auth's answer while Web3 sign-in is off, as it is here. */
export const web3 = () => new Refusal.Web3Disabled()

/** Any other grant type, or none. */
export const unsupported = () => new Refusal.UnsupportedGrantType()
