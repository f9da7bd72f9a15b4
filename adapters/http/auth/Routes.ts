import * as Effect from "effect/Effect"
import { PasskeysDisabled } from "../../../application/auth/AuthError.js"
import { requireEnabled as customProvidersOn } from "../../../application/auth/admin/CustomProviderRules.js"
import { MfaSettings } from "../../../application/auth/MfaSettings.js"
import { ensureManualLinking as manualLinkingOn } from "../../../application/auth/UnlinkIdentity.js"
import * as Pipeline from "../Pipeline.js"
import * as Readiness from "../Readiness.js"
import * as Route from "../Route.js"
import * as Authorize from "./Authorize.js"
import * as AdminUserBody from "./admin/AdminUserBody.js"
import * as CreateAdminUser from "./admin/CreateAdminUser.js"
import * as CreateCustomProvider from "./admin/CreateCustomProvider.js"
import * as CustomProviderBody from "./admin/CustomProviderBody.js"
import * as DeleteAdminUser from "./admin/DeleteAdminUser.js"
import * as DeleteCustomProvider from "./admin/DeleteCustomProvider.js"
import * as DeleteFactor from "./admin/DeleteFactor.js"
import * as DeleteUserPasskey from "./admin/DeleteUserPasskey.js"
import * as GenerateLink from "./admin/GenerateLink.js"
import * as GetAdminUser from "./admin/GetAdminUser.js"
import * as GetCustomProvider from "./admin/GetCustomProvider.js"
import * as InviteUser from "./admin/InviteUser.js"
import * as ListCustomProviders from "./admin/ListCustomProviders.js"
import * as ListFactors from "./admin/ListFactors.js"
import * as ListUserPasskeys from "./admin/ListUserPasskeys.js"
import * as ListUsers from "./admin/ListUsers.js"
import * as UpdateAdminUser from "./admin/UpdateAdminUser.js"
import * as UpdateCustomProvider from "./admin/UpdateCustomProvider.js"
import * as UpdateFactor from "./admin/UpdateFactor.js"
import * as ChallengeFactor from "./ChallengeFactor.js"
import * as ConsumeSamlAssertion from "./ConsumeSamlAssertion.js"
import * as CreateRecoveryCodes from "./CreateRecoveryCodes.js"
import * as DeletePasskey from "./DeletePasskey.js"
import * as DeleteRecoveryCodes from "./DeleteRecoveryCodes.js"
import { beforeInput, body, type Callers, endpoint, type Failure, first, type Limit, none, ofInput, param, query, type Services } from "./Endpoint.js"
import * as EnrollFactor from "./EnrollFactor.js"
import { answering, problems } from "./ErrorResponse.js"
import * as FollowVerifyLink from "./FollowVerifyLink.js"
import * as GetCurrentUser from "./GetCurrentUser.js"
import * as GetSamlMetadata from "./GetSamlMetadata.js"
import * as Health from "./Health.js"
import * as Jwks from "./Jwks.js"
import * as LinkIdentity from "./LinkIdentity.js"
import * as ListPasskeys from "./ListPasskeys.js"
import * as Logout from "./Logout.js"
import * as MagicLink from "./MagicLink.js"
import * as Otp from "./Otp.js"
import * as PasskeyAuthenticationOptions from "./PasskeyAuthenticationOptions.js"
import * as PasskeyAuthenticationVerify from "./PasskeyAuthenticationVerify.js"
import * as PasskeyRegistrationOptions from "./PasskeyRegistrationOptions.js"
import * as PasskeyRegistrationVerify from "./PasskeyRegistrationVerify.js"
import * as ProviderCallback from "./ProviderCallback.js"
import * as ProviderFormPost from "./ProviderFormPost.js"
import * as Reauthenticate from "./Reauthenticate.js"
import * as Recover from "./Recover.js"
import * as RecoveryCodesStatus from "./RecoveryCodesStatus.js"
import * as RegenerateRecoveryCodes from "./RegenerateRecoveryCodes.js"
import * as Resend from "./Resend.js"
import * as Settings from "./Settings.js"
import * as SignInWithSso from "./SignInWithSso.js"
import * as Signup from "./Signup.js"
import * as Token from "./Token.js"
import * as UnenrollFactor from "./UnenrollFactor.js"
import * as UnlinkIdentity from "./UnlinkIdentity.js"
import * as UpdateCurrentUser from "./UpdateCurrentUser.js"
import * as UpdatePasskey from "./UpdatePasskey.js"
import * as VerifyFactor from "./VerifyFactor.js"
import * as VerifyOtp from "./VerifyOtp.js"
import * as VerifyRecoveryCode from "./VerifyRecoveryCode.js"

export type { Services } from "./Endpoint.js"

/**
 * Supabase Auth reads every body as JSON whatever its type; these are the types clients send
 * (supabase-js: `application/json;charset=UTF-8`), and none at all.
 */
const json = ["application/json", "text/plain", ""]
/** The calls of supabase-js, from pages on other origins; most but GETs read a JSON body. */
const api: Route.RouteOptions = { cors: true }
const jsonApi: Route.RouteOptions = { accepts: json, cors: true }
/** Browser navigations, not calls of supabase-js: no CORS. */
const browser: Route.RouteOptions = {}
/** The confirmation page's form (POST /verify) and SAML's posted assertions, beside JSON. */
const form = "application/x-www-form-urlencoded"
const jsonOrForm: Route.RouteOptions = { accepts: [...json, form], cors: true }

/** One endpoint: its method and path, its contract, its handler, and what it reads of the wire. */
const route = <K extends keyof Callers, In>(
  method: Route.Method,
  path: string,
  contract: Pipeline.Contract<K, Limit, In, Failure, Services>,
  handle: Pipeline.Handle<In, Callers[K], Failure, Services>,
  options: Route.RouteOptions = method === "GET" ? api : jsonApi
) => Route.make(method, path, endpoint(contract, handle), options)

/**
 * A `/passkeys` route: Supabase Auth's `requirePasskeyEnabled` wraps them all, so with
 * `PASSKEY_ENABLED` off each answers 404 `passkey_disabled` before its rate limit, captcha or
 * caller is looked at.
 */
const passkeyRoute = <K extends keyof Callers, In>(
  method: Route.Method,
  path: string,
  contract: Pipeline.Contract<K, Limit, In, Failure, Services>,
  handle: Pipeline.Handle<In, Callers[K], Failure, Services>
) => {
  const run = endpoint(contract, handle)
  return Route.make<Services>(
    method,
    path,
    (request) => Effect.flatMap(MfaSettings, (mfa) => (mfa.passkeys.enabled ? run(request) : answering<never>(request)(Effect.fail(new PasskeysDisabled())))),
    method === "GET" ? api : jsonApi
  )
}

/**
 * POST /token: the query's `grant_type` picks the endpoint, as Supabase Auth reads it first.
 * Every grant it knows counts against `RATE_LIMIT_TOKEN_REFRESH` once its captcha has passed;
 * every grant but `refresh_token`, `pkce` and `id_token` needs one, an unknown grant included,
 * which is then refused without being counted.
 */
const token = Pipeline.byQuery(
  "grant_type",
  {
    password: endpoint({ captcha: true, caller: "anyone", limit: beforeInput("token"), input: body(Token.PasswordBody) }, Token.password),
    refresh_token: endpoint({ caller: "anyone", limit: beforeInput("token"), input: body(Token.RefreshBody) }, Token.refresh),
    pkce: endpoint({ caller: "anyone", limit: beforeInput("token"), input: body(Token.PkceBody) }, Token.pkce),
    id_token: endpoint({ caller: "anyone", limit: beforeInput("token"), input: body(Token.IdTokenBody) }, Token.idToken),
    web3: endpoint({ captcha: true, caller: "anyone", limit: beforeInput("token"), input: none }, Token.web3)
  },
  endpoint({ captcha: true, caller: "anyone", input: none }, Token.unsupported)
)

/**
 * The auth service's endpoints, Supabase Auth's paths, each with its contract (Endpoint.ts, run
 * by Pipeline.ts in one order): who may call it, its captcha, its rate limit (counted `first`,
 * before the captcha and the caller, as Supabase Auth's limiter middleware does), what must be
 * switched on, and the input it reads. All of them answer browsers on other origins:
 * supabase-js runs in the application's pages and sends its API key and bearer token in
 * headers, never cookies.
 */
const endpoints: ReadonlyArray<Route.Route<Services>> = [
  route("GET", "/health", { caller: "anyone", input: none }, Health.handle),
  // Ours, for load balancers and container health checks (Supabase Auth has no such answer).
  Route.make("GET", "/health/ready", Readiness.handle(problems)),
  route("GET", "/settings", { caller: "anyone", input: none }, Settings.handle),
  route("GET", "/.well-known/jwks.json", { caller: "anyone", input: none }, Jwks.handle),
  route("POST", "/signup", { captcha: true, caller: "anyone", input: body(Signup.Body), limit: ofInput(Signup.limitOf) }, Signup.handle),
  Route.make("POST", "/token", token, jsonApi),
  route("GET", "/user", { caller: "user", input: none }, GetCurrentUser.handle),
  route("PUT", "/user", { limit: first("otp"), caller: "user", input: body(UpdateCurrentUser.Body) }, UpdateCurrentUser.handle),
  route("GET", "/user/identities/authorize", { caller: "user", requires: manualLinkingOn, input: query }, LinkIdentity.handle),
  route("DELETE", "/user/identities/{identity_id}", { caller: "user", input: param("identity_id") }, UnlinkIdentity.handle),
  // Supabase Auth counts no rate limit on enrolment and unenrolment (its limiter is on challenge
  // and verify only).
  route("POST", "/factors", { caller: "permanentUser", input: EnrollFactor.input }, EnrollFactor.handle),
  // Recovery codes before /factors/{factor_id}, which would read "recovery-codes" as a malformed
  // factor id. Verify shares the factor verify's limit: both guess at a second factor.
  route("GET", "/factors/recovery-codes", { caller: "permanentUser", input: none }, RecoveryCodesStatus.handle),
  route("POST", "/factors/recovery-codes", { caller: "permanentUser", input: CreateRecoveryCodes.input }, CreateRecoveryCodes.handle),
  route("DELETE", "/factors/recovery-codes", { caller: "permanentUser", input: none }, DeleteRecoveryCodes.handle),
  route(
    "POST",
    "/factors/recovery-codes/verify",
    { caller: "permanentUser", limit: beforeInput("factorVerify"), input: VerifyRecoveryCode.input },
    VerifyRecoveryCode.handle
  ),
  route("POST", "/factors/recovery-codes/regenerate", { caller: "permanentUser", input: none }, RegenerateRecoveryCodes.handle),
  route("DELETE", "/factors/{factor_id}", { caller: "permanentUser", input: param("factor_id") }, UnenrollFactor.handle),
  route("POST", "/logout", { caller: "user", input: Logout.scope }, Logout.handle),
  // Also the form of the page GET /verify shows with MAILER_LINK_CONFIRMATION_PAGE.
  route("POST", "/verify", { limit: first("verify"), caller: "anyone", input: VerifyOtp.input }, VerifyOtp.handle, jsonOrForm),
  route("GET", "/verify", { limit: first("verify"), caller: "anyone", input: FollowVerifyLink.input }, FollowVerifyLink.handle),
  route("POST", "/resend", { limit: first("otp"), captcha: true, caller: "anyone", input: body(Resend.Body) }, Resend.handle),
  route("POST", "/recover", { limit: first("otp"), captcha: true, caller: "anyone", input: body(Recover.Body) }, Recover.handle),
  route("POST", "/magiclink", { limit: first("otp"), captcha: true, caller: "anyone", input: body(MagicLink.Body) }, MagicLink.handle),
  route("POST", "/otp", { limit: first("otp"), captcha: true, caller: "anyone", input: body(Otp.Body) }, Otp.handle),
  route("POST", "/invite", { caller: "admin", input: body(InviteUser.Body) }, InviteUser.handle),
  route("GET", "/reauthenticate", { caller: "user", input: none }, Reauthenticate.handle),
  route(
    "POST",
    "/factors/{factor_id}/challenge",
    { caller: "factorOwner", limit: beforeInput("factorChallenge"), input: ChallengeFactor.input },
    ChallengeFactor.handle
  ),
  route("POST", "/factors/{factor_id}/verify", { caller: "factorOwner", limit: beforeInput("factorVerify"), input: VerifyFactor.input }, VerifyFactor.handle),
  passkeyRoute(
    "POST",
    "/passkeys/authentication/options",
    { limit: first("passkey"), captcha: true, caller: "anyone", input: none },
    PasskeyAuthenticationOptions.handle
  ),
  passkeyRoute("POST", "/passkeys/authentication/verify", { caller: "anyone", input: PasskeyAuthenticationVerify.input }, PasskeyAuthenticationVerify.handle),
  passkeyRoute("POST", "/passkeys/registration/options", { caller: "permanentUser", input: none }, PasskeyRegistrationOptions.handle),
  passkeyRoute("POST", "/passkeys/registration/verify", { caller: "permanentUser", input: PasskeyRegistrationVerify.input }, PasskeyRegistrationVerify.handle),
  passkeyRoute("GET", "/passkeys", { caller: "user", input: none }, ListPasskeys.handle),
  passkeyRoute("PATCH", "/passkeys/{passkey_id}", { caller: "user", input: UpdatePasskey.input }, UpdatePasskey.handle),
  passkeyRoute("DELETE", "/passkeys/{passkey_id}", { caller: "user", input: param("passkey_id") }, DeletePasskey.handle),
  route("POST", "/sso", { caller: "anyone", input: none }, SignInWithSso.handle),
  route("GET", "/sso/saml/metadata", { caller: "anyone", input: none }, GetSamlMetadata.handle),
  route("POST", "/sso/saml/acs", { caller: "anyone", input: none }, ConsumeSamlAssertion.handle, jsonOrForm),
  route("GET", "/authorize", { caller: "anyone", input: query }, Authorize.handle, browser),
  route("GET", "/callback", { caller: "anyone", input: ProviderCallback.url }, ProviderCallback.handle, browser),
  // Providers that answer with a form (Apple's form_post) post it here.
  route("POST", "/callback", { caller: "anyone", input: ProviderFormPost.url }, ProviderFormPost.handle, { accepts: [form] }),
  route("POST", "/admin/generate_link", { caller: "admin", input: body(GenerateLink.Body) }, GenerateLink.handle),
  route("GET", "/admin/users", { caller: "admin", input: ListUsers.query }, ListUsers.handle),
  route("POST", "/admin/users", { caller: "admin", input: AdminUserBody.decode }, CreateAdminUser.handle),
  route("GET", "/admin/users/{user_id}", { caller: "admin", input: GetAdminUser.input }, GetAdminUser.handle),
  route("PUT", "/admin/users/{user_id}", { caller: "admin", input: UpdateAdminUser.input }, UpdateAdminUser.handle),
  route("DELETE", "/admin/users/{user_id}", { caller: "admin", input: DeleteAdminUser.input }, DeleteAdminUser.handle),
  route("GET", "/admin/users/{user_id}/factors", { caller: "admin", input: GetAdminUser.input }, ListFactors.handle),
  route("PUT", "/admin/users/{user_id}/factors/{factor_id}", { caller: "admin", input: UpdateFactor.input }, UpdateFactor.handle),
  route("DELETE", "/admin/users/{user_id}/factors/{factor_id}", { caller: "admin", input: DeleteFactor.input }, DeleteFactor.handle),
  route("GET", "/admin/users/{user_id}/passkeys", { caller: "admin", input: GetAdminUser.input }, ListUserPasskeys.handle),
  route("DELETE", "/admin/users/{user_id}/passkeys/{passkey_id}", { caller: "admin", input: DeleteUserPasskey.input }, DeleteUserPasskey.handle, api),
  // Custom providers switched off: 404 before the body is read, as Supabase Auth's middleware answers.
  route("GET", "/admin/custom-providers", { caller: "admin", input: query }, ListCustomProviders.handle),
  route("POST", "/admin/custom-providers", { caller: "admin", requires: customProvidersOn, input: CustomProviderBody.decode }, CreateCustomProvider.handle),
  route("GET", "/admin/custom-providers/{identifier}", { caller: "admin", input: param("identifier") }, GetCustomProvider.handle),
  route(
    "PUT",
    "/admin/custom-providers/{identifier}",
    { caller: "admin", requires: customProvidersOn, input: CustomProviderBody.decode },
    UpdateCustomProvider.handle
  ),
  route("DELETE", "/admin/custom-providers/{identifier}", { caller: "admin", input: param("identifier") }, DeleteCustomProvider.handle, api)
]

/**
 * Supabase's gateway serves its auth API under `/auth/v1`, and supabase-js's `createClient(url)`
 * calls `url + "/auth/v1"`: every endpoint answers there too, so an application only changes
 * its URL. At the root it answers as Supabase Auth itself does, for `@supabase/auth-js` and
 * for a gateway that strips the prefix.
 */
export const gatewayPrefix = "/auth/v1"

export const routes: ReadonlyArray<Route.Route<Services>> = [...endpoints, ...endpoints.map((route) => ({ ...route, path: `${gatewayPrefix}${route.path}` }))]

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
