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
import { AuthHttpConfig } from "./AuthHttpConfig.js"
import * as Bearer from "./Bearer.js"
import * as CaptchaGuard from "./CaptchaGuard.js"
import * as ClientInfo from "./ClientInfo.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as JsonRequest from "./JsonRequest.js"
import { field } from "./JsonRequest.js"
import * as RateLimit from "./RateLimit.js"
import * as Refusal from "./Refusal.js"
import * as SessionJson from "./SessionJson.js"

const PasswordBody = Schema.Struct({
  email: field(Schema.String),
  phone: field(Schema.String),
  password: field(Schema.String)
})
const RefreshBody = Schema.Struct({ refresh_token: field(Schema.String) })
const PkceBody = Schema.Struct({ auth_code: field(Schema.String), code_verifier: field(Schema.String) })
const IdTokenBody = Schema.Struct({
  id_token: field(Schema.String),
  access_token: field(Schema.String),
  nonce: field(Schema.String),
  provider: field(Schema.String),
  client_id: field(Schema.String),
  issuer: field(Schema.String),
  link_identity: field(Schema.Boolean)
})

/** `grant_type` from the query, as Supabase Auth's `r.FormValue` finds it for a JSON body. */
const grantType = (query: string) => new URLSearchParams(query).get("grant_type") ?? ""

const password = (request: HttpRequest) =>
  Effect.gen(function* () {
    const body = yield* JsonRequest.decode(PasswordBody)(request)
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
    return HttpMessage.json(SessionJson.encode(grant, weak))
  })

const refresh = (request: HttpRequest) =>
  Effect.gen(function* () {
    const body = yield* JsonRequest.decode(RefreshBody)(request)
    return HttpMessage.json(SessionJson.encode(yield* refreshSession(body.refresh_token ?? "")))
  })

/** The PKCE grant: the code a followed mail link or a provider sign-in handed out, for a session (ExchangeCode). */
const pkce = (request: HttpRequest) =>
  Effect.gen(function* () {
    const body = yield* JsonRequest.decode(PkceBody)(request)
    const exchanged = yield* exchangeCode(
      body.auth_code ?? "",
      body.code_verifier ?? "",
      ClientInfo.of(request)
    )
    const tokens = Option.getOrUndefined(exchanged.providerTokens)
    const refresh = tokens === undefined ? undefined : Option.getOrUndefined(tokens.refreshToken)
    return HttpMessage.json(
      SessionJson.encode(exchanged.grant, {
        ...(tokens === undefined ? {} : { provider_token: Redacted.value(tokens.accessToken) }),
        ...(refresh === undefined ? {} : { provider_refresh_token: Redacted.value(refresh) })
      })
    )
  })

/**
 * Sign-in with an ID token from a provider's own SDK (supabase-js `signInWithIdToken`), or with
 * `link_identity` the token's identity linked to the signed-in user (`linkIdentity({ provider,
 * token })`), whose access token is the bearer; no `Authorization` at all is Supabase Auth's
 * own refusal, a malformed one its usual 401.
 */
const idToken = (request: HttpRequest) =>
  Effect.gen(function* () {
    const body = yield* JsonRequest.decode(IdTokenBody)(request)
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
                : yield* Effect.either(Bearer.token(request))
            )
          : Option.none()
    })
    return HttpMessage.json(SessionJson.encode(grant))
  })

/**
 * POST /token — `?grant_type=password` (`signInWithPassword`), `refresh_token` (every session
 * refresh of supabase-js), and the grants of features still to come answered as Supabase Auth
 * answers them while those features are off. Every grant counts against
 * `RATE_LIMIT_TOKEN_REFRESH` per client address, as in Supabase Auth.
 */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    const grant = grantType(request.query)
    // As Supabase Auth: every grant but these needs a captcha, an unknown one included.
    if (!["pkce", "refresh_token", "id_token"].includes(grant)) yield* CaptchaGuard.guard(request)
    const known = ["password", "refresh_token", "pkce", "id_token", "web3"]
    if (!known.includes(grant)) return yield* new Refusal.UnsupportedGrantType()
    const config = yield* AuthHttpConfig
    yield* RateLimit.consume("token", request.clientIp, config.tokenLimit)
    switch (grant) {
      case "password":
        return yield* password(request)
      case "refresh_token":
        return yield* refresh(request)
      case "pkce":
        return yield* pkce(request)
      case "id_token":
        return yield* idToken(request)
      default:
        return yield* new Refusal.Web3Disabled()
    }
  }).pipe(ErrorResponse.answering(request))
