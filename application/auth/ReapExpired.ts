import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Factor from "../../domain/auth/Factor.js"
import { JobLock } from "../ports/JobLock.js"
import * as Telemetry from "../Telemetry.js"
import { MfaSettings } from "./MfaSettings.js"
import { FactorStore } from "./ports/FactorStore.js"
import { FlowStateStore } from "./ports/FlowStateStore.js"
import { PasskeyStore } from "./ports/PasskeyStore.js"

/** How many rows each kind lost in one run. */
export interface ReapReport {
  readonly factorChallenges: number
  readonly abandonedFactors: number
  readonly passkeyChallenges: number
  readonly flowStates: number
}

/**
 * How long Supabase Auth's cleanup (`models/cleanup.go`) keeps factor challenges and flow
 * states: a day, long after they stop being usable, so that a late verify still hears that its
 * challenge expired rather than that it never existed.
 */
export const keptFor = Duration.hours(24)

/** The lock's name: one run at a time across the instances sharing the database. */
export const lockName = "auth.reaper"

const before = (now: Date, duration: Duration.Duration) =>
  new Date(now.getTime() - Duration.toMillis(duration))

/**
 * Deletes what can never be used again, as Supabase Auth's cleanup does: factor challenges older
 * than a day (or than `MFA_CHALLENGE_EXPIRY_DURATION`, if longer), then the unverified factors
 * without a challenge older than `MFA_FACTOR_EXPIRY_DURATION` (the enrolment's own rule, which
 * the reaped challenges now let go too), expired passkey challenges, and flow states older than
 * a day. One instance at a time: none when another instance is already reaping.
 */
export const reapExpired = Telemetry.fn("ReapExpired.reapExpired")(() =>
  Effect.gen(function* () {
    const lock = yield* JobLock
    const factors = yield* FactorStore
    const passkeys = yield* PasskeyStore
    const flows = yield* FlowStateStore
    const mfa = yield* MfaSettings
    return yield* lock.runExclusive(
      lockName,
      Effect.gen(function* () {
        const now = new Date(yield* Clock.currentTimeMillis)
        const factorChallenges = yield* factors.reapChallenges(
          before(now, Duration.max(keptFor, mfa.challengeLifetime))
        )
        const abandonedFactors = yield* factors.removeAbandoned(
          before(now, Factor.unverifiedLifetime(mfa.unverifiedLifetime))
        )
        const passkeyChallenges = yield* passkeys.reapChallenges(now)
        const flowStates = yield* flows.purge(before(now, keptFor))
        return { factorChallenges, abandonedFactors, passkeyChallenges, flowStates } satisfies ReapReport
      })
    )
  }).pipe(
    Effect.tap((report) =>
      Option.match(report, {
        onNone: () => Effect.logDebug("reaper skipped: another instance holds the lock"),
        onSome: (reaped) => Effect.logInfo("reaper finished").pipe(Effect.annotateLogs({ ...reaped }))
      })
    )
  )
)()
