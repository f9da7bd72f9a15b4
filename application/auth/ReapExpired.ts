import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Factor from "../../domain/auth/Factor.js"
import * as FlowState from "../../domain/auth/FlowState.js"
import type * as Session from "../../domain/auth/Session.js"
import * as Reaping from "../Reaping.js"
import * as Telemetry from "../Telemetry.js"
import { AuthSettings } from "./AuthSettings.js"
import { MfaSettings } from "./MfaSettings.js"
import { FactorStore } from "./ports/FactorStore.js"
import { FlowStateStore } from "./ports/FlowStateStore.js"
import { PasskeyStore } from "./ports/PasskeyStore.js"
import { SessionStore } from "./ports/SessionStore.js"
import { UserRepository } from "./ports/UserRepository.js"

/** How many rows each kind lost in one run. */
export interface ReapReport {
  readonly factorChallenges: number
  readonly abandonedFactors: number
  readonly passkeyChallenges: number
  readonly flowStates: number
  readonly endedSessions: number
  readonly outlivedSessions: number
  readonly retiredRefreshTokens: number
  readonly anonymousUsers: number
}

/**
 * How long Supabase Auth's cleanup (`models/cleanup.go`) keeps factor challenges, flow states
 * and retired refresh tokens: a day, long after they stop being usable, so that a late verify
 * still hears that its challenge expired rather than that it never existed, and a stolen token
 * replayed within the day is still a reuse that ends its session.
 */
export const keptFor = Duration.hours(24)

/**
 * How long an anonymous user lasts while anonymous sign-ins are on, as Supabase Auth's cleanup
 * keeps them: 30 days from the sign-in, however active since. One who linked an address or a
 * provider in time is no longer anonymous and stays.
 */
export const anonymousLifetime = Duration.days(30)

/**
 * How long a flow state is kept from its creation: a day, or as long as it can still be used if
 * longer. A mailed link's flow is made when the mail is sent, its code when the link is followed
 * (up to `MAILER_OTP_EXP` later), and the code then waits up to `EXTERNAL_FLOW_STATE_EXPIRY_DURATION`.
 */
export const flowStateKeptFor = (settings: {
  readonly verification: { readonly lifetime: Duration.Duration }
  readonly flowStateLifetime: Duration.Duration
}): Duration.Duration =>
  Duration.max(
    keptFor,
    Duration.sum(settings.verification.lifetime, FlowState.lifetime(settings.flowStateLifetime))
  )

/** The lock's name: one run at a time across the instances sharing the database. */
export const lockName = "auth.reaper"

const before = (now: Date, duration: Duration.Duration) =>
  new Date(now.getTime() - Duration.toMillis(duration))

/**
 * Sessions a day past `SESSIONS_TIMEBOX` from their sign-in, or past
 * `SESSIONS_INACTIVITY_TIMEOUT` from their last use, as Supabase Auth's cleanup deletes them;
 * none to look for without either.
 */
const outlived = (
  limits: Session.Limits,
  now: Date,
  drain: Reaping.Run["drain"],
  sessions: SessionStore["Type"]
) => {
  const cutoff = (limit: Option.Option<Duration.Duration>) =>
    Option.map(limit, (duration) => before(now, Duration.sum(duration, keptFor)))
  const cutoffs = { startedBefore: cutoff(limits.timebox), idleSince: cutoff(limits.inactivityTimeout) }
  if (Option.isNone(cutoffs.startedBefore) && Option.isNone(cutoffs.idleSince)) return Effect.succeed(0)
  return drain((limit) => sessions.reapOutlived(cutoffs, limit))
}

/**
 * Deletes what can never be used again: factor challenges older than a day (or than
 * `MFA_CHALLENGE_EXPIRY_DURATION`, if longer), as Supabase Auth's cleanup; then the unverified
 * factors without a challenge older than `MFA_FACTOR_EXPIRY_DURATION` (the enrolment's own rule,
 * which the reaped challenges now let go too; Supabase Auth's cleanup deletes unverified factors a
 * day old, challenged or not); expired passkey challenges; flow states older than a day, or than
 * their mail's and their code's lifetimes together if longer (`flowStateKeptFor`); sessions
 * that ended a day ago, with their tokens (Supabase Auth deletes a session at its logout), and
 * those a day past the session limits (`outlived`); and
 * refresh tokens retired a day ago (or `SECURITY_REFRESH_TOKEN_REUSE_INTERVAL` ago, if longer), as its
 * cleanup deletes revoked tokens; and, while anonymous sign-ins are on, anonymous users 30 days
 * old with all that is theirs, as its cleanup does (off, they stay: the operator turned the
 * feature off, not the accounts). In batches (`Reaping.run`), each under the lock in a
 * transaction of its own: one instance at a time; none when another instance is already reaping,
 * and a run stops where another instance took over.
 */
export const reapExpired = Telemetry.fn("ReapExpired.reapExpired")(() =>
  Effect.gen(function* () {
    const factors = yield* FactorStore
    const passkeys = yield* PasskeyStore
    const flows = yield* FlowStateStore
    const mfa = yield* MfaSettings
    const sessions = yield* SessionStore
    const settings = yield* AuthSettings
    const users = yield* UserRepository
    const now = new Date(yield* Clock.currentTimeMillis)
    const { drain, report } = yield* Reaping.run(lockName)
    const reaped: ReapReport = {
      factorChallenges: yield* drain((limit) =>
        factors.reapChallenges(before(now, Duration.max(keptFor, mfa.challengeLifetime)), limit)
      ),
      abandonedFactors: yield* drain((limit) =>
        factors.removeAbandoned(before(now, Factor.unverifiedLifetime(mfa.unverifiedLifetime)), limit)
      ),
      passkeyChallenges: yield* drain((limit) => passkeys.reapChallenges(now, limit)),
      flowStates: yield* drain((limit) => flows.purge(before(now, flowStateKeptFor(settings)), limit)),
      endedSessions: yield* drain((limit) => sessions.reapEnded(before(now, keptFor), limit)),
      outlivedSessions: yield* outlived(settings.sessionLimits, now, drain, sessions),
      retiredRefreshTokens: yield* drain((limit) =>
        sessions.reapRetired(before(now, Duration.max(keptFor, settings.refreshPolicy.reuseInterval)), limit)
      ),
      anonymousUsers: settings.anonymousEnabled
        ? yield* drain((limit) => users.reapAnonymous(before(now, anonymousLifetime), limit))
        : 0
    }
    return report(reaped)
  }).pipe(
    Effect.tap((report) =>
      Option.match(report, {
        onNone: () => Effect.logDebug("reaper skipped: another instance holds the lock"),
        onSome: (reaped) => Effect.logInfo("reaper finished").pipe(Effect.annotateLogs({ ...reaped }))
      })
    )
  )
)()
