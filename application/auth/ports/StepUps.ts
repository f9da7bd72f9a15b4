import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ChallengeId } from "../../../domain/auth/FactorChallenge.js"
import type { Session } from "../../../domain/auth/Session.js"
import type { Raise } from "./SessionStore.js"

/**
 * A step up by a verified factor's code, as a verify hands it over once the code is right: the
 * challenge to spend and the session to raise (`Raise`), `seen` as the request's access-token
 * check read it a moment ago.
 */
export interface StepUp extends Raise {
  readonly challengeId: ChallengeId
  /** A TOTP code's time step, recorded on the factor; none for a texted code. */
  readonly totpStep: Option.Option<number>
  /** The session as the request read it; its id is `sessionId`. */
  readonly seen: Session
}

/** What a step up came to. Only `Raised` wrote anything. */
export type StepUpOutcome =
  /**
   * The challenge spent, the step recorded, the session raised as `SessionStore.raise` raises it
   * (`raised`: the session as it now stands).
   */
  | { readonly _tag: "Raised"; readonly raised: Session }
  /** The challenge was spent already, or never was the factor's. */
  | { readonly _tag: "Gone" }
  /** The TOTP step is not later than the factor's last. */
  | { readonly _tag: "StepRefused" }
  /** The session is no longer as `seen` (refreshed, raised, lowered or ended since). */
  | { readonly _tag: "Moved" }

/**
 * The common case of `POST /factors/{id}/verify` — a verified TOTP or phone factor stepping up a
 * session that has not moved since the request read it — in one atomic step: the challenge spent
 * (`FactorStore.useChallenge`'s rules) and the session raised (`SessionStore.raise`'s: as
 * `Assurance.raise` leaves `seen`, the user's other aal1 sessions ended, a new live token), or
 * nothing written. One round trip where the general verify's transaction takes five; the verify
 * falls back to that transaction on any outcome but `Raised`, which then answers as it would
 * have. Never called inside a transaction.
 */
export class StepUps extends Context.Tag("latchkey/auth/StepUps")<
  StepUps,
  { readonly stepUp: (stepUp: StepUp) => Effect.Effect<StepUpOutcome> }
>() {}
