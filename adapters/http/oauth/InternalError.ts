import { randomUUID } from "node:crypto"
import { Cause, Effect } from "effect"
import { type ApiResponse, json } from "./ApiMessage.js"

/**
 * Unexpected failures: logged with a request id, answered with that id and nothing else — no
 * message, no stack trace.
 */
export const answer = <E>(cause: Cause.Cause<E>): Effect.Effect<ApiResponse> =>
  Effect.gen(function* () {
    const requestId = randomUUID()
    // A client that hung up interrupts its request: nobody is waiting for an answer, and it is
    // not a failure of ours.
    if (Cause.isInterruptedOnly(cause)) {
      yield* Effect.logDebug("request interrupted").pipe(Effect.annotateLogs({ requestId }))
    } else {
      yield* Effect.logError("request failed", cause).pipe(Effect.annotateLogs({ requestId }))
    }
    return json({ error: "server_error", error_description: `internal error (request id ${requestId})` }, 500)
  })
