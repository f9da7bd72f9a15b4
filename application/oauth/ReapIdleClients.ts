import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ClientId } from "../../domain/Ids.js"
import { JobLock } from "../ports/JobLock.js"
import * as Telemetry from "../Telemetry.js"
import { AuthorizationCodeStore } from "./ports/AuthorizationCodeStore.js"
import { ClientRepository } from "./ports/ClientRepository.js"
import { ConsentStore } from "./ports/ConsentStore.js"
import { PendingLoginStore } from "./ports/PendingLoginStore.js"
import { SessionStore } from "./ports/SessionStore.js"
import { TokenStore } from "./ports/TokenStore.js"

export interface ReapReport {
  readonly clients: ReadonlyArray<ClientId>
  readonly codes: number
  readonly pendingLogins: number
  readonly pendingConsents: number
  readonly sessions: number
  readonly accessTokens: number
  readonly families: number
}

/**
 * Removes dynamic clients idle for 90 days (with their tokens) and purges what can never be
 * used again. One instance at a time: none when another instance is already reaping.
 */
export const reapIdleClients = Telemetry.fn("ReapIdleClients.reapIdleClients")(() =>
  Effect.gen(function* () {
    const lock = yield* JobLock
    const clients = yield* ClientRepository
    const codes = yield* AuthorizationCodeStore
    const pending = yield* PendingLoginStore
    const tokens = yield* TokenStore
    const consents = yield* ConsentStore
    const sessions = yield* SessionStore
    return yield* lock.runExclusive(
      "oauth.reaper",
      Effect.gen(function* () {
        const now = new Date(yield* Clock.currentTimeMillis)
        const reaped = yield* clients.reapIdle(now)
        const purgedCodes = yield* codes.purge(now)
        const purgedPending = yield* pending.purge(now)
        const purgedTokens = yield* tokens.purge(now)
        const purgedConsents = yield* consents.purge(now)
        const purgedSessions = yield* sessions.purge(now)
        return {
          clients: reaped,
          codes: purgedCodes,
          pendingLogins: purgedPending,
          pendingConsents: purgedConsents,
          sessions: purgedSessions,
          accessTokens: purgedTokens.accessTokens,
          families: purgedTokens.families
        } satisfies ReapReport
      })
    )
  }).pipe(
    Effect.tap((report) =>
      Option.match(report, {
        onNone: () => Effect.logDebug("reaper skipped: another instance holds the lock"),
        onSome: (r) =>
          Effect.logInfo("reaper finished").pipe(
            Effect.annotateLogs({ clients: r.clients.length, codes: r.codes, accessTokens: r.accessTokens })
          )
      })
    )
  )
)()
