import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { DatabaseProbe } from "../../application/ports/DatabaseProbe.js"
import * as HttpMessage from "./HttpMessage.js"
import type { Problems } from "./Problems.js"
import type { Handler } from "./Route.js"
import { retryAfterSeconds } from "./Server.js"

/**
 * How long the readiness answer waits for the database: well inside the few seconds a load
 * balancer or `HEALTHCHECK --timeout` gives a probe, so that a database that stopped answering
 * costs a 503 rather than a probe that times out.
 */
export const probeTimeout = Duration.seconds(2)

/**
 * GET /health/ready — whether this instance can serve requests now: one round trip to its
 * database (DatabaseProbe). 200 `{"status":"ready"}` when the database answered within
 * `probeTimeout`; otherwise the service's own 503 body (`problems.unavailable`, with
 * `Retry-After`), whatever the failure was. `GET /health` answers without the database: it says
 * the process is up (liveness); this says it is worth sending traffic to (readiness).
 */
export const handle =
  (problems: Problems): Handler<DatabaseProbe> =>
  (request) =>
    Effect.flatMap(DatabaseProbe, (probe) => probe.ping).pipe(
      Effect.timeoutFail({
        duration: probeTimeout,
        onTimeout: () => new Error(`the database did not answer within ${Duration.format(probeTimeout)}`)
      }),
      Effect.as(HttpMessage.json({ status: "ready" }, 200, { "cache-control": "no-store" })),
      Effect.catchAllCause((cause) =>
        Effect.as(
          Effect.logWarning("not ready: the database did not answer", Cause.squash(cause)),
          withNoStore(problems.unavailable(request.requestId, retryAfterSeconds))
        )
      )
    )

const withNoStore = (response: HttpMessage.HttpResponse): HttpMessage.HttpResponse => ({
  ...response,
  headers: { ...response.headers, "cache-control": "no-store" }
})
