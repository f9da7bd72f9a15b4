import type { OAuthSettings } from "../../../application/oauth/OAuthSettings.js"
import type { AuthorizationCodeStore } from "../../../application/oauth/ports/AuthorizationCodeStore.js"
import type { ClientMetadataFetcher } from "../../../application/oauth/ports/ClientMetadataFetcher.js"
import type { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import type { ConsentStore } from "../../../application/oauth/ports/ConsentStore.js"
import type { PendingLoginStore } from "../../../application/oauth/ports/PendingLoginStore.js"
import type { SessionStore } from "../../../application/oauth/ports/SessionStore.js"
import type { TokenStore } from "../../../application/oauth/ports/TokenStore.js"
import type { UpstreamUsers } from "../../../application/oauth/ports/UpstreamUsers.js"
import type { DatabaseProbe } from "../../../application/ports/DatabaseProbe.js"
import type { RateLimiter } from "../../../application/ports/RateLimiter.js"
import type { SecretHasher } from "../../../application/ports/SecretHasher.js"
import type { TokenMint } from "../../../application/ports/TokenMint.js"
import type { UpstreamIdentityProvider } from "../../../application/ports/UpstreamIdentityProvider.js"
import * as Readiness from "../Readiness.js"
import * as Route from "../Route.js"
import * as Authorize from "./Authorize.js"
import * as Callback from "./Callback.js"
import * as Consent from "./Consent.js"
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
  | AuthorizationCodeStore
  | PendingLoginStore
  | ConsentStore
  | SessionStore
  | TokenStore
  | UpstreamUsers
  | UpstreamIdentityProvider
  | RateLimiter
  | SecretHasher
  | TokenMint
  | DatabaseProbe

const form = ["application/x-www-form-urlencoded"]

/**
 * The oauth service's endpoints. The machine endpoints and the metadata document answer
 * cross-origin callers (browser-based clients; none of them uses cookies); the browser pages
 * (authorize, callback, consent) and the health answers do not.
 */
export const routes: ReadonlyArray<Route.Route<Services>> = [
  Route.make("POST", "/token", Token.handle, { accepts: form, cors: true }),
  Route.make("POST", "/introspect", Introspect.handle, { accepts: form, cors: true }),
  Route.make("POST", "/revoke", Revoke.handle, { accepts: form, cors: true }),
  Route.make("POST", "/register", Register.handle, { accepts: ["application/json"], cors: true }),
  Route.make("GET", "/.well-known/oauth-authorization-server", Metadata.handle, { cors: true }),
  // For load balancers and container health checks, not for clients: no CORS.
  Route.make("GET", "/health", Health.handle),
  Route.make("GET", "/health/ready", Readiness.handle(problems)),
  Route.make("GET", "/", Authorize.handle),
  Route.make("GET", "/callback", Callback.handle),
  Route.make("POST", "/consent", Consent.handle, { accepts: form })
]

/** Browser-based clients call the machine endpoints cross-origin, without cookies. */
export const cors = {
  origin: "any",
  scope: "routes",
  allowHeaders: ["Authorization", "Content-Type"],
  exposeHeaders: [],
  maxAgeSeconds: 86_400
} as const
