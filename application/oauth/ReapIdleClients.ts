import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ClientId } from "../../domain/Ids.js"
import * as Reaping from "../Reaping.js"
import * as Telemetry from "../Telemetry.js"
import { AuthorizationCodeStore } from "./ports/AuthorizationCodeStore.js"
import { ClientRepository } from "./ports/ClientRepository.js"
import { ConsentStore } from "./ports/ConsentStore.js"
import { PendingLoginStore } from "./ports/PendingLoginStore.js"
import { SessionStore } from "./ports/SessionStore.js"
import { TokenStore } from "./ports/TokenStore.js"
import { UsedAssertions } from "./ports/UsedAssertions.js"

export interface ReapReport {
  readonly clients: ReadonlyArray<ClientId>
  readonly codes: number
  readonly pendingLogins: number
  readonly pendingConsents: number
  readonly sessions: number
  readonly accessTokens: number
  readonly families: number
  readonly usedAssertions: number
}

/** The lock's name: one run at a time across the instances sharing the database. */
export const lockName = "oauth.reaper"

/**
 * Removes dynamic clients idle for 90 days (with their tokens) and purges what can never be
 * used again. In batches (`Reaping.run`), each under the lock in a transaction of its own: one
 * instance at a time; none when another instance is already reaping, and a run stops where
 * another instance took over.
 */
export const reapIdleClients = Telemetry.fn("ReapIdleClients.reapIdleClients")(() =>
  Effect.gen(function* () {
    const clients = yield* ClientRepository
    const codes = yield* AuthorizationCodeStore
    const pending = yield* PendingLoginStore
    const tokens = yield* TokenStore
    const consents = yield* ConsentStore
    const sessions = yield* SessionStore
    const usedAssertions = yield* UsedAssertions
    const now = new Date(yield* Clock.currentTimeMillis)
    const { drain, drainAll, report } = yield* Reaping.run(lockName)
    const reaped = yield* drainAll(
      (limit) => clients.reapIdle(now, limit),
      (ids) => ids.length
    )
    const purgedCodes = yield* drain((limit) => codes.purge(now, limit))
    const purgedPending = yield* drain((limit) => pending.purge(now, limit))
    // A batch is full when either kind filled it: both go on until both come back short.
    const purgedTokens = yield* drainAll(
      (limit) => tokens.purge(now, limit),
      (purged) => Math.max(purged.accessTokens, purged.families)
    )
    const purgedConsents = yield* drain((limit) => consents.purge(now, limit))
    const purgedSessions = yield* drain((limit) => sessions.purge(now, limit))
    const purgedAssertions = yield* drain((limit) => usedAssertions.purge(now, limit))
    return report({
      clients: reaped.flat(),
      codes: purgedCodes,
      pendingLogins: purgedPending,
      pendingConsents: purgedConsents,
      sessions: purgedSessions,
      accessTokens: purgedTokens.reduce((total, purged) => total + purged.accessTokens, 0),
      families: purgedTokens.reduce((total, purged) => total + purged.families, 0),
      usedAssertions: purgedAssertions
    } satisfies ReapReport)
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
