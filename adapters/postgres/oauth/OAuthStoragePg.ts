import * as Layer from "effect/Layer"
import * as RateLimiterPg from "../RateLimiterPg.js"
import * as AuthorizationCodeStorePg from "./AuthorizationCodeStorePg.js"
import * as ClientRepositoryPg from "./ClientRepositoryPg.js"
import * as ConsentStorePg from "./ConsentStorePg.js"
import * as PendingLoginStorePg from "./PendingLoginStorePg.js"
import * as SessionStorePg from "./SessionStorePg.js"
import * as TokenStorePg from "./TokenStorePg.js"
import * as UpstreamUsersPg from "./UpstreamUsersPg.js"
import * as UsedAssertionsPg from "./UsedAssertionsPg.js"

/**
 * Every storage port of the oauth service on Postgres (or embedded PGlite); needs a SqlClient.
 * The JobLock is chosen with the database (JobLockPg.layerFor): advisory locks on a server,
 * an in-process lock on the embedded database, whose single connection a held lock would block.
 */
export const layer = Layer.mergeAll(
  ClientRepositoryPg.layer,
  UpstreamUsersPg.layer,
  AuthorizationCodeStorePg.layer,
  PendingLoginStorePg.layer,
  TokenStorePg.layer,
  RateLimiterPg.layer,
  ConsentStorePg.layer,
  SessionStorePg.layer,
  UsedAssertionsPg.layer
)
