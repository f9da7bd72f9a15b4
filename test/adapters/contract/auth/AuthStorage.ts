import type { Vitest } from "@effect/vitest"
import type { UserRepository } from "../../../../application/auth/ports/UserRepository.js"

/** Every storage port of the auth service: what each adapter set provides. */
export type AuthStorage = UserRepository

export type It = Vitest.MethodsNonLive<AuthStorage>
