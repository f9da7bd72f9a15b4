import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * One round trip to the database, for the readiness answer a load balancer and a container's
 * health check ask for (`GET /health/ready`). It succeeds when the database answered; a
 * database out of reach is a defect, as every other storage failure is.
 */
export class DatabaseProbe extends Context.Tag("latchkey/DatabaseProbe")<
  DatabaseProbe,
  {
    readonly ping: Effect.Effect<void>
  }
>() {}
