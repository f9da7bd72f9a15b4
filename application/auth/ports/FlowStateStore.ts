import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { FlowState, FlowStateId } from "../../../domain/auth/FlowState.js"
import type { SecretHash } from "../../../domain/Ids.js"

/** PKCE flow states of the mailed flows (`FlowState`); the authorization code only as a digest. */
export class FlowStateStore extends Context.Tag("latchkey/auth/FlowStateStore")<
  FlowStateStore,
  {
    /** Stores a new flow state; joins the caller's transaction (`Transactions.run`). */
    readonly create: (flow: FlowState) => Effect.Effect<void>
    /** Gives the flow its authorization code (a digest), issued at `now`; false when it is gone. */
    readonly issueCode: (id: FlowStateId, codeHash: SecretHash, now: Date) => Effect.Effect<boolean>
    /** Takes the flow of this code out, once: of concurrent exchanges of one code one gets it. */
    readonly takeByCode: (codeHash: SecretHash) => Effect.Effect<Option.Option<FlowState>>
    /**
     * Deletes the flows created before `createdBefore`, code issued or not, at most `limit`, passing over rows a request holds locked (a later call takes them); how many.
     */
    readonly purge: (createdBefore: Date, limit: number) => Effect.Effect<number>
  }
>() {}
