import * as Effect from "effect/Effect"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import type { AuthSettings } from "../../../application/auth/AuthSettings.js"
import type { CaptchaSettings } from "../../../application/auth/Captcha.js"
import type { JwtSettings } from "../../../application/auth/JwtSettings.js"
import type { AccessTokens } from "../../../application/auth/ports/AccessTokens.js"
import type { CaptchaVerifier } from "../../../application/auth/ports/CaptchaVerifier.js"
import type { CustomProviderStore } from "../../../application/auth/ports/CustomProviderStore.js"
import type { Enrolments } from "../../../application/auth/ports/Enrolments.js"
import type { ExternalLoginStore } from "../../../application/auth/ports/ExternalLoginStore.js"
import type { ExternalProviders } from "../../../application/auth/ports/ExternalProviders.js"
import type { FlowStateStore } from "../../../application/auth/ports/FlowStateStore.js"
import type { IdTokenVerifier } from "../../../application/auth/ports/IdTokenVerifier.js"
import type { MailOutbox } from "../../../application/auth/ports/MailOutbox.js"
import type { OneTimeTokenStore } from "../../../application/auth/ports/OneTimeTokenStore.js"
import type { ProviderEndpoints } from "../../../application/auth/ports/ProviderEndpoints.js"
import type { SessionStore } from "../../../application/auth/ports/SessionStore.js"
import type { SmsSender } from "../../../application/auth/ports/SmsSender.js"
import type { Transactions } from "../../../application/auth/ports/Transactions.js"
import type { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import type { DatabaseProbe } from "../../../application/ports/DatabaseProbe.js"
import type { PasswordHasher } from "../../../application/ports/PasswordHasher.js"
import type { RateLimiter } from "../../../application/ports/RateLimiter.js"
import type { Secrets } from "../../../application/ports/Secrets.js"
import type { VerifiedClaims } from "../../../domain/auth/AccessTokenClaims.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as Pipeline from "../Pipeline.js"
import { AuthHttpConfig } from "./AuthHttpConfig.js"
import * as Bearer from "./Bearer.js"
import * as CaptchaGuard from "./CaptchaGuard.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as JsonRequest from "./JsonRequest.js"
import * as RateLimit from "./RateLimit.js"

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

/**
 * Who may call an auth endpoint, and what its handler is handed: anyone (nothing), a signed-in
 * user (`Authorization: Bearer` an access token of a live session of a user who exists and is
 * not banned), or an administrator (a token whose role is one of `JWT_ADMIN_ROLES`, the
 * service-role key among them). A required assurance level (`aal2`) will be a caller of its
 * own here, checked after the user's.
 */
export interface Callers {
  readonly anyone: undefined
  readonly user: Authenticate.SignedIn
  readonly admin: VerifiedClaims
}

/** The rate limits of the auth service, each counted per client address under its own key. */
export type Limit = "token" | "anonymous" | "otp" | "verify"

const limits = {
  /** `RATE_LIMIT_TOKEN_REFRESH`. */
  token: "tokenLimit",
  /** `RATE_LIMIT_ANONYMOUS_USERS`. */
  anonymous: "anonymousLimit",
  /** `RATE_LIMIT_OTP`. */
  otp: "otpLimit",
  /** `RATE_LIMIT_VERIFY`. */
  verify: "verifyLimit"
} as const satisfies Record<Limit, string>

const user = (request: HttpRequest) => Effect.flatMap(Bearer.token(request), Authenticate.user)
const admin = (request: HttpRequest) => Effect.flatMap(Bearer.token(request), Authenticate.admin)

/** What the auth service's endpoints refuse with: whatever its error table answers. */
export type Failure = Effect.Effect.Error<Parameters<ReturnType<typeof ErrorResponse.answering>>[0]>

/**
 * The auth service's checks, run by the one pipeline (`Pipeline.make`, which fixes their order):
 * Supabase Auth's bearer reading (`Bearer.token`) and its user and admin checks, its per-address
 * rate limits, its captcha (`CaptchaGuard`), and its error bodies (`ErrorResponse`).
 */
export const endpoint = Pipeline.make<Callers, Limit, Failure, Services>({
  callers: { anyone: { known: undefined }, user, admin },
  limit: (limit, request) =>
    Effect.flatMap(AuthHttpConfig, (config) =>
      RateLimit.consume(limit, request.clientIp, config[limits[limit]])
    ),
  captcha: CaptchaGuard.guard,
  answer: ErrorResponse.answering
})

/** A JSON body decoded into `schema`, as Supabase Auth reads every body (JsonRequest). */
export const body = JsonRequest.decode

export { beforeInput, first, none, ofInput, param, query } from "../Pipeline.js"
