import type { Vitest } from "@effect/vitest"
import type { Enrolments } from "../../../../application/auth/ports/Enrolments.js"
import type { ExternalLoginStore } from "../../../../application/auth/ports/ExternalLoginStore.js"
import type { FactorStore } from "../../../../application/auth/ports/FactorStore.js"
import type { FlowStateStore } from "../../../../application/auth/ports/FlowStateStore.js"
import type { MailOutbox } from "../../../../application/auth/ports/MailOutbox.js"
import type { OneTimeTokenStore } from "../../../../application/auth/ports/OneTimeTokenStore.js"
import type { PasskeyStore } from "../../../../application/auth/ports/PasskeyStore.js"
import type { SessionStore } from "../../../../application/auth/ports/SessionStore.js"
import type { StepUps } from "../../../../application/auth/ports/StepUps.js"
import type { Transactions } from "../../../../application/auth/ports/Transactions.js"
import type { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import type { Secrets } from "../../../../application/ports/Secrets.js"

/**
 * Every storage port of the auth service: what each adapter set provides, `Transactions`
 * included (a refresh decides under its session's lock in one). `Secrets` comes
 * along because presenting a refresh token, as the contract does it, seals and opens children.
 */
export type AuthStorage =
  | UserRepository
  | SessionStore
  | MailOutbox
  | OneTimeTokenStore
  | FlowStateStore
  | ExternalLoginStore
  | Secrets
  | Enrolments
  | FactorStore
  | PasskeyStore
  | StepUps
  | Transactions

export type It = Vitest.MethodsNonLive<AuthStorage>
