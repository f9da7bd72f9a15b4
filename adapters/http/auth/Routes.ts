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
import type { TokenSealer } from "../../../application/auth/ports/TokenSealer.js"
import type { Transactions } from "../../../application/auth/ports/Transactions.js"
import type { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import type { DatabaseProbe } from "../../../application/ports/DatabaseProbe.js"
import type { PasswordHasher } from "../../../application/ports/PasswordHasher.js"
import type { RateLimiter } from "../../../application/ports/RateLimiter.js"
import type { SecretHasher } from "../../../application/ports/SecretHasher.js"
import type { TokenMint } from "../../../application/ports/TokenMint.js"
import * as Readiness from "../Readiness.js"
import * as Route from "../Route.js"
import type { AuthHttpConfig } from "./AuthHttpConfig.js"
import * as Authorize from "./Authorize.js"
import * as CreateCustomProvider from "./admin/CreateCustomProvider.js"
import * as CreateUser from "./admin/CreateUser.js"
import * as DeleteCustomProvider from "./admin/DeleteCustomProvider.js"
import * as DeleteUser from "./admin/DeleteUser.js"
import * as GenerateLink from "./admin/GenerateLink.js"
import * as GetCustomProvider from "./admin/GetCustomProvider.js"
import * as AdminGetUser from "./admin/GetUser.js"
import * as InviteUser from "./admin/InviteUser.js"
import * as ListCustomProviders from "./admin/ListCustomProviders.js"
import * as ListUsers from "./admin/ListUsers.js"
import * as UpdateCustomProvider from "./admin/UpdateCustomProvider.js"
import * as AdminUpdateUser from "./admin/UpdateUser.js"
import * as Callback from "./Callback.js"
import { problems } from "./ErrorResponse.js"
import * as GetUser from "./GetUser.js"
import * as Health from "./Health.js"
import * as Identities from "./Identities.js"
import * as Jwks from "./Jwks.js"
import * as Logout from "./Logout.js"
import * as MagicLink from "./MagicLink.js"
import * as Otp from "./Otp.js"
import * as Reauthenticate from "./Reauthenticate.js"
import * as Recover from "./Recover.js"
import * as Resend from "./Resend.js"
import * as Settings from "./Settings.js"
import * as Signup from "./Signup.js"
import * as Sso from "./Sso.js"
import * as Token from "./Token.js"
import * as UpdateUser from "./UpdateUser.js"
import * as Verify from "./Verify.js"

/** What the auth service's endpoints run on. */
export type Services =
  | AuthSettings
  | AuthHttpConfig
  | JwtSettings
  | AccessTokens
  | UserRepository
  | SessionStore
  | TokenSealer
  | PasswordHasher
  | SecretHasher
  | TokenMint
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
 * Supabase Auth reads every body as JSON whatever its type; these are the types clients send
 * (supabase-js: `application/json;charset=UTF-8`), and none at all.
 */
const json = ["application/json", "text/plain", ""]

/**
 * The auth service's endpoints, Supabase Auth's paths. All of them answer browsers on other
 * origins: supabase-js runs in the application's pages and sends its API key and bearer token
 * in headers, never cookies.
 */
const endpoints: ReadonlyArray<Route.Route<Services>> = [
  Route.make("GET", "/health", Health.handle, { cors: true }),
  // Ours, for load balancers and container health checks (Supabase Auth has no such answer).
  Route.make("GET", "/health/ready", Readiness.handle(problems)),
  Route.make("GET", "/settings", Settings.handle, { cors: true }),
  Route.make("GET", "/.well-known/jwks.json", Jwks.handle, { cors: true }),
  Route.make("POST", "/signup", Signup.handle, { accepts: json, cors: true }),
  Route.make("POST", "/token", Token.handle, { accepts: json, cors: true }),
  Route.make("GET", "/user", GetUser.handle, { cors: true }),
  Route.make("PUT", "/user", UpdateUser.handle, { accepts: json, cors: true }),
  Route.make("GET", "/user/identities/authorize", Identities.handleLink, { cors: true }),
  Route.make("DELETE", "/user/identities/{identity_id}", Identities.handleUnlink, {
    accepts: json,
    cors: true
  }),
  Route.make("POST", "/logout", Logout.handle, { accepts: json, cors: true }),
  // Also the form of the page GET /verify shows with MAILER_LINK_CONFIRMATION_PAGE.
  Route.make("POST", "/verify", Verify.handlePost, { accepts: [...json, Verify.formType], cors: true }),
  Route.make("GET", "/verify", Verify.handleGet, { cors: true }),
  Route.make("POST", "/resend", Resend.handle, { accepts: json, cors: true }),
  Route.make("POST", "/recover", Recover.handle, { accepts: json, cors: true }),
  Route.make("POST", "/magiclink", MagicLink.handle, { accepts: json, cors: true }),
  Route.make("POST", "/otp", Otp.handle, { accepts: json, cors: true }),
  Route.make("POST", "/invite", InviteUser.handle, { accepts: json, cors: true }),
  Route.make("GET", "/reauthenticate", Reauthenticate.handle, { cors: true }),
  Route.make("POST", "/sso", Sso.handle, { accepts: json, cors: true }),
  Route.make("GET", "/sso/saml/metadata", Sso.handle, { cors: true }),
  Route.make("POST", "/sso/saml/acs", Sso.handle, {
    accepts: [...json, "application/x-www-form-urlencoded"],
    cors: true
  }),
  // Browser navigations, not calls of supabase-js: no CORS.
  Route.make("GET", "/authorize", Authorize.handle),
  Route.make("GET", "/callback", Callback.handle),
  // Providers that answer with a form (Apple's form_post) post it here.
  Route.make("POST", "/callback", Callback.handle, { accepts: ["application/x-www-form-urlencoded"] }),
  Route.make("POST", "/admin/generate_link", GenerateLink.handle, { accepts: json, cors: true }),
  Route.make("GET", "/admin/users", ListUsers.handle, { cors: true }),
  Route.make("POST", "/admin/users", CreateUser.handle, { accepts: json, cors: true }),
  Route.make("GET", "/admin/users/{user_id}", AdminGetUser.handle, { cors: true }),
  Route.make("PUT", "/admin/users/{user_id}", AdminUpdateUser.handle, { accepts: json, cors: true }),
  Route.make("DELETE", "/admin/users/{user_id}", DeleteUser.handle, { accepts: json, cors: true }),
  Route.make("GET", "/admin/custom-providers", ListCustomProviders.handle, { cors: true }),
  Route.make("POST", "/admin/custom-providers", CreateCustomProvider.handle, { accepts: json, cors: true }),
  Route.make("GET", "/admin/custom-providers/{identifier}", GetCustomProvider.handle, { cors: true }),
  Route.make("PUT", "/admin/custom-providers/{identifier}", UpdateCustomProvider.handle, {
    accepts: json,
    cors: true
  }),
  Route.make("DELETE", "/admin/custom-providers/{identifier}", DeleteCustomProvider.handle, { cors: true })
]

/**
 * Supabase's gateway serves its auth API under `/auth/v1`, and supabase-js's `createClient(url)`
 * calls `url + "/auth/v1"`: every endpoint answers there too, so an application only changes
 * its URL. At the root it answers as Supabase Auth itself does, for `@supabase/auth-js` and
 * for a gateway that strips the prefix.
 */
export const gatewayPrefix = "/auth/v1"

export const routes: ReadonlyArray<Route.Route<Services>> = [
  ...endpoints,
  ...endpoints.map((route) => ({ ...route, path: `${gatewayPrefix}${route.path}` }))
]

/**
 * Browsers call from the application's origin with supabase-js's headers: the API key, the
 * bearer token, its client info and API version. Every answer carries the headers, as Supabase
 * Auth's CORS middleware wraps its whole router (`api/api.go`): a browser then shows the
 * application a 404, a 405 or a 413 for what it is, not as a CORS error.
 */
export const cors = {
  origin: "any",
  scope: "every answer",
  allowHeaders: ["Authorization", "Content-Type", "apikey", "X-Client-Info", "X-Supabase-Api-Version"],
  exposeHeaders: ["X-Total-Count", "Link", "X-Supabase-Api-Version", "X-Sb-Error-Code"],
  maxAgeSeconds: 86_400
} as const
