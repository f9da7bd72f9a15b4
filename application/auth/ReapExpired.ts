import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Factor from "../../domain/auth/Factor.js"
import { JobLock } from "../ports/JobLock.js"
import * as Telemetry from "../Telemetry.js"
import { AuthSettings } from "./AuthSettings.js"
import { MfaSettings } from "./MfaSettings.js"
import { FactorStore } from "./ports/FactorStore.js"
import { FlowStateStore } from "./ports/FlowStateStore.js"
import { PasskeyStore } from "./ports/PasskeyStore.js"
import { SessionStore } from "./ports/SessionStore.js"

/** How many rows each kind lost in one run. */
export interface ReapReport {
  readonly factorChallenges: number
  readonly abandonedFactors: number
  readonly passkeyChallenges: number
  readonly flowStates: number
  readonly endedSessions: number
  readonly retiredRefreshTokens: number
}

/**
 * How long Supabase Auth's cleanup (`models/cleanup.go`) keeps factor challenges, flow states
 * and retired refresh tokens: a day, long after they stop being usable, so that a late verify
 * still hears that its challenge expired rather than that it never existed, and a stolen token
 * replayed within the day is still a reuse that ends its session.
 */
export const keptFor = Duration.hours(24)

/** The lock's name: one run at a time across the instances sharing the database. */
export const lockName = "auth.reaper"

/**
 * Rows one statement deletes at most, as in Supabase Auth's cleanup: each batch is a short
 * transaction of its own that passes over rows a request holds locked, so the reaper never waits
 * on a sign-in and never holds many rows, however much has piled up (a first run on an imported
 * database).
 */
export const batchSize = 100

/** Batches of one kind in one run at most: a run's length is bounded, the next run goes on. */
export const maxBatches = 100

const before = (now: Date, duration: Duration.Duration) =>
  new Date(now.getTime() - Duration.toMillis(duration))

/**
 * Deletes what can never be used again: factor challenges older than a day (or than
 * `MFA_CHALLENGE_EXPIRY_DURATION`, if longer), as Supabase Auth's cleanup; then the unverified
 * factors without a challenge older than `MFA_FACTOR_EXPIRY_DURATION` (the enrolment's own rule,
 * which the reaped challenges now let go too; Supabase Auth's cleanup deletes unverified factors a
 * day old, challenged or not); expired passkey challenges; flow states older than a day; sessions
 * that ended a day ago, with their tokens (Supabase Auth deletes a session at its logout); and
 * refresh tokens retired a day ago (or `SECURITY_REFRESH_TOKEN_REUSE_INTERVAL` ago, if longer), as its
 * cleanup deletes revoked tokens. In
 * batches (`batchSize`), each under the lock in a transaction of its own: one instance at a time;
 * none when another instance is already reaping, and a run stops where another instance took
 * over.
 */
export const reapExpired = Telemetry.fn("ReapExpired.reapExpired")(() =>
  Effect.gen(function* () {
    const lock = yield* JobLock
    const factors = yield* FactorStore
    const passkeys = yield* PasskeyStore
    const flows = yield* FlowStateStore
    const mfa = yield* MfaSettings
    const sessions = yield* SessionStore
    const settings = yield* AuthSettings
    const now = new Date(yield* Clock.currentTimeMillis)
    let ran = false
    let skipped = false
    /** Deletes batch after batch until one comes back short, or another instance holds the lock. */
    const drain = (remove: (limit: number) => Effect.Effect<number>) =>
      Effect.gen(function* () {
        let total = 0
        for (let batch = 0; batch < maxBatches && !skipped; batch++) {
          const removed = yield* lock.runExclusive(lockName, remove(batchSize))
          if (Option.isNone(removed)) {
            skipped = true
            break
          }
          ran = true
          total += removed.value
          if (removed.value < batchSize) break
        }
        return total
      })
    const report: ReapReport = {
      factorChallenges: yield* drain((limit) =>
        factors.reapChallenges(before(now, Duration.max(keptFor, mfa.challengeLifetime)), limit)
      ),
      abandonedFactors: yield* drain((limit) =>
        factors.removeAbandoned(before(now, Factor.unverifiedLifetime(mfa.unverifiedLifetime)), limit)
      ),
      passkeyChallenges: yield* drain((limit) => passkeys.reapChallenges(now, limit)),
      flowStates: yield* drain((limit) => flows.purge(before(now, keptFor), limit)),
      endedSessions: yield* drain((limit) => sessions.reapEnded(before(now, keptFor), limit)),
      retiredRefreshTokens: yield* drain((limit) =>
        sessions.reapRetired(before(now, Duration.max(keptFor, settings.refreshPolicy.reuseInterval)), limit)
      )
    }
    return ran ? Option.some(report) : Option.none()
  }).pipe(
    Effect.tap((report) =>
      Option.match(report, {
        onNone: () => Effect.logDebug("reaper skipped: another instance holds the lock"),
        onSome: (reaped) => Effect.logInfo("reaper finished").pipe(Effect.annotateLogs({ ...reaped }))
      })
    )
  )
)()
