import * as Layer from "effect/Layer"
import * as AuthTables from "./AuthTables.js"
import * as SessionStorePg from "./SessionStorePg.js"
import * as UserRepositoryPg from "./UserRepositoryPg.js"

/**
 * Every storage port of the auth service on Postgres (or embedded PGlite), on the tables of
 * one `DB_NAMESPACE` (empty: no prefix); needs a SqlClient.
 */
export const layer = (namespace: string) =>
  Layer.mergeAll(UserRepositoryPg.layer, SessionStorePg.layer).pipe(
    Layer.provide(AuthTables.layer(namespace))
  )
