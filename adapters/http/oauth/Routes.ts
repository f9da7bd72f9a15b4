import type { OAuthError } from "../../../application/oauth/OAuthError.js"
import type { OAuthSettings } from "../../../application/oauth/OAuthSettings.js"
import type { AuthorizationCodeStore } from "../../../application/oauth/ports/AuthorizationCodeStore.js"
import type { ClientKeys } from "../../../application/oauth/ports/ClientKeys.js"
import type { ClientMetadataFetcher } from "../../../application/oauth/ports/ClientMetadataFetcher.js"
import type { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import type { ConsentStore } from "../../../application/oauth/ports/ConsentStore.js"
import type { PendingLoginStore } from "../../../application/oauth/ports/PendingLoginStore.js"
import type { SessionStore } from "../../../application/oauth/ports/SessionStore.js"
import type { TokenStore } from "../../../application/oauth/ports/TokenStore.js"
import type { UpstreamUsers } from "../../../application/oauth/ports/UpstreamUsers.js"
import type { UsedAssertions } from "../../../application/oauth/ports/UsedAssertions.js"
import type { DatabaseProbe } from "../../../application/ports/DatabaseProbe.js"
import type { RateLimiter } from "../../../application/ports/RateLimiter.js"
import type { Secrets } from "../../../application/ports/Secrets.js"
import type { UpstreamIdentityProvider } from "../../../application/ports/UpstreamIdentityProvider.js"
import type * as Pipeline from "../Pipeline.js"
import * as Readiness from "../Readiness.js"
import * as Route from "../Route.js"
import * as Authorize from "./Authorize.js"
import * as Callback from "./Callback.js"
import * as Consent from "./Consent.js"
import { type Callers, endpoint, form, none, type Refused, tokenForm } from "./Endpoint.js"
import { problems } from "./ErrorResponse.js"
import * as Health from "./Health.js"
import * as Introspect from "./Introspect.js"
import * as Metadata from "./Metadata.js"
import type { OAuthHttpConfig } from "./OAuthHttpConfig.js"
import * as Register from "./Register.js"
import * as Revoke from "./Revoke.js"
import * as Token from "./Token.js"

/** What the oauth service's endpoints run on. */
export type Services =
  | OAuthSettings
  | OAuthHttpConfig
  | ClientRepository
  | ClientMetadataFetcher
  | ClientKeys
  | UsedAssertions
  | AuthorizationCodeStore
  | PendingLoginStore
  | ConsentStore
  | SessionStore
  | TokenStore
  | UpstreamUsers
  | UpstreamIdentityProvider
  | RateLimiter
  | Secrets
  | DatabaseProbe

const formBody = ["application/x-www-form-urlencoded"]
/** The machine endpoints: a form body, for cross-origin callers too. */
const formApi: Route.RouteOptions = { accepts: formBody, cors: true }

/**
 * One endpoint: its method and path, its contract (Endpoint.ts, run by Pipeline.ts as the auth
 * service's are), its handler, and what it reads of the wire.
 */
const route = <K extends keyof Callers, In>(
  method: Route.Method,
  path: string,
  contract: Pipeline.Contract<K, never, In, OAuthError | Refused, Services>,
  handle: Pipeline.Handle<In, Callers[K], OAuthError | Refused, Services>,
  options: Route.RouteOptions = {}
) => Route.make(method, path, endpoint(contract, handle), options)

/**
 * The oauth service's endpoints. The machine endpoints and the metadata document answer
 * cross-origin callers (browser-based clients; none of them uses cookies); the browser pages
 * (authorize, callback, consent) and the health answers do not.
 */
export const routes: ReadonlyArray<Route.Route<Services>> = [
  route("POST", "/token", { caller: "anyone", input: tokenForm }, Token.handle, formApi),
  route("POST", "/introspect", { caller: "resourceServer", input: form }, Introspect.handle, formApi),
  route("POST", "/revoke", { caller: "anyone", input: form }, Revoke.handle, formApi),
  route("POST", "/register", { caller: "anyone", input: Register.json }, Register.handle, { accepts: ["application/json"], cors: true }),
  route("GET", "/.well-known/oauth-authorization-server", { caller: "anyone", input: none }, Metadata.handle, { cors: true }),
  // For load balancers and container health checks, not for clients: no CORS.
  route("GET", "/health", { caller: "anyone", input: none }, Health.handle),
  Route.make("GET", "/health/ready", Readiness.handle(problems)),
  route("GET", "/", { caller: "anyone", input: Authorize.input }, Authorize.handle),
  route("GET", "/callback", { caller: "anyone", input: Callback.url }, Callback.handle),
  route("POST", "/consent", { caller: "anyone", input: Consent.input }, Consent.handle, { accepts: formBody })
]

/**
 * Browser-based clients call the machine endpoints cross-origin, without cookies. The MCP SDKs
 * send `MCP-Protocol-Version` with their metadata requests; refused at the preflight, they
 * would see a CORS error and retry without it.
 */
export const cors = {
  origin: "any",
  scope: "routes",
  allowHeaders: ["Authorization", "Content-Type", "MCP-Protocol-Version"],
  exposeHeaders: [],
  maxAgeSeconds: 86_400
} as const
