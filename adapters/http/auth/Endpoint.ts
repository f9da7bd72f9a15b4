import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AuthError from "../../../application/auth/AuthError.js"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import type { AuthSettings } from "../../../application/auth/AuthSettings.js"
import type { CaptchaSettings } from "../../../application/auth/Captcha.js"
import * as Captcha from "../../../application/auth/Captcha.js"
import * as FactorInput from "../../../application/auth/FactorInput.js"
import type { JwtSettings } from "../../../application/auth/JwtSettings.js"
import type { MfaSettings } from "../../../application/auth/MfaSettings.js"
import type { AccessTokens } from "../../../application/auth/ports/AccessTokens.js"
import type { CaptchaVerifier } from "../../../application/auth/ports/CaptchaVerifier.js"
import type { CustomProviderStore } from "../../../application/auth/ports/CustomProviderStore.js"
import type { Enrolments } from "../../../application/auth/ports/Enrolments.js"
import type { ExternalLoginStore } from "../../../application/auth/ports/ExternalLoginStore.js"
import type { ExternalProviders } from "../../../application/auth/ports/ExternalProviders.js"
import type { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import type { FlowStateStore } from "../../../application/auth/ports/FlowStateStore.js"
import type { IdTokenVerifier } from "../../../application/auth/ports/IdTokenVerifier.js"
import type { MailOutbox } from "../../../application/auth/ports/MailOutbox.js"
import type { OneTimeTokenStore } from "../../../application/auth/ports/OneTimeTokenStore.js"
import type { PasskeyStore } from "../../../application/auth/ports/PasskeyStore.js"
import type { ProviderEndpoints } from "../../../application/auth/ports/ProviderEndpoints.js"
import type { SecretsAtRest } from "../../../application/auth/ports/SecretsAtRest.js"
import type { SessionStore } from "../../../application/auth/ports/SessionStore.js"
import type { SmsSender } from "../../../application/auth/ports/SmsSender.js"
import type { StepUps } from "../../../application/auth/ports/StepUps.js"
import type { TotpCodes } from "../../../application/auth/ports/TotpCodes.js"
import type { Transactions } from "../../../application/auth/ports/Transactions.js"
import type { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import type { WebAuthnCeremonies } from "../../../application/auth/ports/WebAuthnCeremonies.js"
import type { DatabaseProbe } from "../../../application/ports/DatabaseProbe.js"
import type { PasswordHasher } from "../../../application/ports/PasswordHasher.js"
import { RateLimiter } from "../../../application/ports/RateLimiter.js"
import type { Secrets } from "../../../application/ports/Secrets.js"
import type { VerifiedClaims } from "../../../domain/auth/AccessTokenClaims.js"
import { type HttpRequest, header } from "../HttpMessage.js"
import * as JsonBody from "../JsonBody.js"
import * as Pipeline from "../Pipeline.js"
import { AuthHttpConfig } from "./AuthHttpConfig.js"
import * as ClientInfo from "./ClientInfo.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Refusal from "./Refusal.js"

/** What the auth service's endpoints run on. */
export type Services =
  | AuthSettings
  | AuthHttpConfig
  | JwtSettings
  | AccessTokens
  | UserRepository
  | SessionStore
  | Secrets
  | PasswordHasher
  | RateLimiter
  | MailOutbox
  | Enrolments
  | OneTimeTokenStore
  | FlowStateStore
  | Transactions
  | SmsSender
  | CaptchaSettings
  | CaptchaVerifier
  | ExternalProviders
  | ExternalLoginStore
  | IdTokenVerifier
  | CustomProviderStore
  | ProviderEndpoints
  | DatabaseProbe
  | FactorStore
  | MfaSettings
  | TotpCodes
  | SecretsAtRest
  | PasskeyStore
  | WebAuthnCeremonies
  | StepUps

/**
 * Who may call an auth endpoint, and what its handler is handed: anyone (nothing), a signed-in
 * user (`Authorization: Bearer` an access token of a live session of a user who exists and is
 * not banned), a permanent user (such a user who did not sign in anonymously: Supabase Auth's
 * `requireNotAnonymous`, 403 before anything of the request is read), the owner of the path's
 * factor (such a user, with their factor `{factor_id}`: Supabase Auth's `loadFactor`, 404 before
 * the factor's limits count), or an administrator (a token whose role is one of
 * `JWT_ADMIN_ROLES`, the service-role key among them). A required assurance level (`aal2`) will
 * be a caller of its own here, checked after the user's.
 */
export interface Callers {
  readonly anyone: undefined
  readonly user: Authenticate.SignedIn
  readonly permanentUser: Authenticate.SignedIn
  readonly factorOwner: FactorInput.FactorOwner
  readonly admin: VerifiedClaims
}

/** Supabase Auth's reading of the header: `Bearer` in any case, one space, a token without spaces. */
const bearer = /^bearer (\S+)$/i

/** The bearer token of a request to an endpoint that needs one; else 401 `no_authorization`. */
export const bearerToken = (
  request: Pick<HttpRequest, "headers">
): Effect.Effect<string, AuthError.NoBearerToken> => {
  const match = bearer.exec(header(request, "authorization") ?? "")
  return match?.[1] === undefined ? Effect.fail(new AuthError.NoBearerToken()) : Effect.succeed(match[1])
}

const user = (request: HttpRequest) => Effect.flatMap(bearerToken(request), Authenticate.user)
const permanentUser = (request: HttpRequest) => Effect.tap(user(request), FactorInput.requireNotAnonymous)
const factorOwner = (request: HttpRequest) =>
  Effect.flatMap(user(request), (signedIn) =>
    FactorInput.owningFactor(signedIn, request.params.factor_id ?? "")
  )
const admin = (request: HttpRequest) => Effect.flatMap(bearerToken(request), Authenticate.admin)

/** The rate limits of the auth service, each counted per client address under its own key. */
export type Limit = "token" | "anonymous" | "otp" | "verify" | "factorChallenge" | "factorVerify" | "passkey"

const limits = {
  /** `RATE_LIMIT_TOKEN_REFRESH`. */
  token: "tokenLimit",
  /** `RATE_LIMIT_ANONYMOUS_USERS`. */
  anonymous: "anonymousLimit",
  /** `RATE_LIMIT_OTP`. */
  otp: "otpLimit",
  /** `RATE_LIMIT_VERIFY`. */
  verify: "verifyLimit",
  /** `MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY`, counted for challenges and for verifies apart. */
  factorChallenge: "factorLimit",
  factorVerify: "factorLimit",
  /** `RATE_LIMIT_PASSKEY`: passkey sign-in options. */
  passkey: "passkeyLimit"
} as const satisfies Record<Limit, string>

/**
 * One more request under `limit` from the request's client address, counted in the database so
 * that every instance shares the count; past it, 429 `over_request_rate_limit`.
 */
const consume = (limit: Limit, request: HttpRequest) =>
  Effect.gen(function* () {
    const config = yield* AuthHttpConfig
    const limiter = yield* RateLimiter
    const verdict = yield* limiter.consume(
      `auth:${limit}:${request.clientIp}`,
      config[limits[limit]],
      new Date(yield* Clock.currentTimeMillis)
    )
    if (!verdict.allowed) return yield* new Refusal.OverRequestRateLimit()
  })

/**
 * A field of a request body as Supabase Auth reads it into a Go struct: absent and `null` both
 * leave it unset; a value of another JSON type is an error.
 */
export const field = <A, I>(schema: Schema.Schema<A, I>) => Schema.optionalWith(schema, { nullable: true })

/**
 * A request body decoded into `schema`. Supabase Auth unmarshals every body as JSON whatever
 * its media type: text that is not JSON, or a field of the wrong type, is 400 `bad_json`
 * ("Could not parse request body as JSON: …"). An empty body or `null` decodes as `{}`: Supabase
 * Auth answers an empty body `bad_json` ("unexpected end of JSON input") where it reads one, but
 * supabase-js leaves the body out of calls whose fields are all optional (docs/compatibility.md);
 * unknown fields are ignored.
 */
export const body =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (request: Pick<HttpRequest, "body">): Effect.Effect<A, Refusal.BadJson> => {
    const text = request.body.trim() === "" ? "{}" : request.body
    return Either.match(JsonBody.parse(text), {
      onLeft: (description) => Effect.fail(new Refusal.BadJson({ detail: description })),
      onRight: (value) => {
        if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
          return Effect.fail(new Refusal.BadJson({ detail: "the body must be a JSON object" }))
        }
        return Schema.decodeUnknown(schema, { onExcessProperty: "ignore" })(value ?? {}).pipe(
          Effect.mapError((error) => new Refusal.BadJson({ detail: firstIssue(error) }))
        )
      }
    })
  }

/** One line naming the field at fault, e.g. `email: expected a string`. */
const firstIssue = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const issue = issues[0]
  if (issue === undefined) return "the body does not have the expected fields"
  const path = issue.path.map(String).join(".")
  return path === "" ? issue.message : `${path}: ${issue.message}`
}

/** Where supabase-js puts the captcha token (`options.captchaToken`), read on its own. */
const MetaSecurity = Schema.Struct({
  gotrue_meta_security: field(Schema.Struct({ captcha_token: field(Schema.String) }))
})

/**
 * Supabase Auth's captcha check of a request it guards (SECURITY_CAPTCHA_ENABLED): the body's
 * `gotrue_meta_security.captcha_token` verified with the provider, before anything else of the
 * request is read. An administrator's bearer (service_role) skips it, as there; any other
 * bearer, valid or not, does not.
 */
const captcha = (request: HttpRequest) =>
  Effect.gen(function* () {
    if (!(yield* Captcha.CaptchaSettings).enabled) return
    const isAdmin = yield* admin(request).pipe(Effect.option, Effect.map(Option.isSome))
    if (isAdmin) return
    const meta = yield* body(MetaSecurity)(request)
    yield* Captcha.check(meta.gotrue_meta_security?.captcha_token, ClientInfo.of(request).ip)
  })

/** What the auth service's endpoints refuse with: whatever its error table answers. */
export type Failure = Effect.Effect.Error<Parameters<ReturnType<typeof ErrorResponse.answering>>[0]>

/**
 * The auth service's checks, run by the one pipeline (`Pipeline.make`, which fixes their order):
 * Supabase Auth's bearer reading (`bearerToken`) and its user and admin checks, its per-address
 * rate limits (`consume`), its captcha (`captcha`), and its error bodies (`ErrorResponse`).
 */
export const endpoint = Pipeline.make<Callers, Limit, Failure, Services>({
  callers: { anyone: { known: undefined }, user, permanentUser, factorOwner, admin },
  limit: consume,
  captcha,
  answer: ErrorResponse.answering
})

export { beforeInput, first, none, ofInput, param, query } from "../Pipeline.js"
