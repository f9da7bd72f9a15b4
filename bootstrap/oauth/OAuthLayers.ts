import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as NodeSecrets from "../../adapters/crypto/NodeSecrets.js"
import * as Database from "../../adapters/postgres/Database.js"
import * as JobLockPg from "../../adapters/postgres/JobLockPg.js"
import * as OAuthStoragePg from "../../adapters/postgres/oauth/OAuthStoragePg.js"
import * as DatabaseReach from "../DatabaseReach.js"
import type { OAuthConfig } from "./OAuthConfig.js"

/** How long statements may wait; the operator commands wait as long as migrations take. */
export type Timeouts = Pick<Database.DatabaseOptions, "connectTimeout" | "queryTimeout">

/**
 * The database the configuration names: SQL_URL, else embedded PGlite under LATCHKEY_DATA_DIR. A
 * database that cannot be reached is told with the variable.
 */
type DatabaseConfig = Pick<OAuthConfig, "sqlUrl" | "preparedStatements" | "dataDir" | "logLevel">

const database = (config: DatabaseConfig, timeouts: Timeouts) =>
  Database.layer({
    url: config.sqlUrl,
    dataDir: Option.some(config.dataDir),
    urlVariable: "SQL_URL",
    preparedStatements: config.preparedStatements,
    ...timeouts
  }).pipe(
    Layer.provideMerge(Logger.minimumLogLevel(config.logLevel)),
    DatabaseReach.naming("oauth", Option.as(config.sqlUrl, "SQL_URL"))
  )

/** Storage, crypto and the file system (for migrations), on the configured database. */
export const core = (config: DatabaseConfig, timeouts: Timeouts = {}) =>
  Layer.mergeAll(
    OAuthStoragePg.layer,
    JobLockPg.layerFor(Option.isNone(config.sqlUrl)),
    NodeSecrets.layer,
    NodeFileSystem.layer
  ).pipe(Layer.provideMerge(database(config, timeouts)))
