import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { AuthSettings } from "./AuthSettings.js"

/**
 * How long every answer of the endpoints that must not tell whether an address has an account
 * (/recover, /magiclink and /otp with an email, /resend) takes at least. The work for a known
 * address (a token issued, a mail queued: a few writes) takes longer than for an unknown one (a
 * lookup), and the difference would tell the two apart; padding both to the same floor hides it.
 * Well above that work's time on a loaded server, and still well below what Supabase Auth takes
 * for the same answer, since it talks to the mail server before answering.
 */
export const floor = Duration.millis(200)

/**
 * `effect`, answered no sooner than the settings' `answerFloor` (`floor` in the service) after
 * it started, whether it succeeds or fails: a refusal (a mail asked for too soon) is as slow as
 * a success.
 */
export const padded = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | AuthSettings> =>
  Effect.flatMap(AuthSettings, (settings) =>
    Effect.all([Effect.exit(effect), Effect.sleep(settings.answerFloor)], { concurrency: 2 }).pipe(
      Effect.flatMap(([exit]) => exit)
    )
  )
