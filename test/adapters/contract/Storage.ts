import type { Vitest } from "@effect/vitest"
import type { AuthorizationCodeStore } from "../../../application/ports/AuthorizationCodeStore.js"
import type { ClientRepository } from "../../../application/ports/ClientRepository.js"
import type { JobLock } from "../../../application/ports/JobLock.js"
import type { PendingLoginStore } from "../../../application/ports/PendingLoginStore.js"
import type { RateLimiter } from "../../../application/ports/RateLimiter.js"
import type { TokenStore } from "../../../application/ports/TokenStore.js"
import type { UserRepository } from "../../../application/ports/UserRepository.js"

/** Every storage port of the oauth service: what each adapter set provides. */
export type OAuthStorage =
  | ClientRepository
  | UserRepository
  | AuthorizationCodeStore
  | PendingLoginStore
  | TokenStore
  | RateLimiter
  | JobLock

export type It = Vitest.MethodsNonLive<OAuthStorage>

/** Runs `n` copies of an effect at once, as concurrent requests would. */
export const concurrently = 50
