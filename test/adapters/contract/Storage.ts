import type { Vitest } from "@effect/vitest"
import type { AuthorizationCodeStore } from "../../../application/oauth/ports/AuthorizationCodeStore.js"
import type { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import type { ConsentStore } from "../../../application/oauth/ports/ConsentStore.js"
import type { PendingLoginStore } from "../../../application/oauth/ports/PendingLoginStore.js"
import type { SessionStore } from "../../../application/oauth/ports/SessionStore.js"
import type { TokenStore } from "../../../application/oauth/ports/TokenStore.js"
import type { UpstreamUsers } from "../../../application/oauth/ports/UpstreamUsers.js"
import type { UsedAssertions } from "../../../application/oauth/ports/UsedAssertions.js"
import type { JobLock } from "../../../application/ports/JobLock.js"
import type { RateLimiter } from "../../../application/ports/RateLimiter.js"

/** Every storage port of the oauth service: what each adapter set provides. */
export type OAuthStorage =
  | ClientRepository
  | UpstreamUsers
  | AuthorizationCodeStore
  | PendingLoginStore
  | ConsentStore
  | SessionStore
  | TokenStore
  | UsedAssertions
  | RateLimiter
  | JobLock

export type It = Vitest.MethodsNonLive<OAuthStorage>

/** Runs `n` copies of an effect at once, as concurrent requests would. */
export const concurrently = 50

/** A batch (to reap, purge or claim) larger than any test's rows: one call takes every row due. */
export const wholeBatch = 1000
