import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Argon2PasswordHasher from "../../adapters/crypto/Argon2PasswordHasher.js"
import * as DatabaseEncryption from "../../adapters/crypto/auth/DatabaseEncryption.js"
import * as JoseAccessTokens from "../../adapters/crypto/auth/JoseAccessTokens.js"
import * as OtpauthTotpCodes from "../../adapters/crypto/auth/OtpauthTotpCodes.js"
import * as NodeSecrets from "../../adapters/crypto/NodeSecrets.js"
import * as AuthStoragePg from "../../adapters/postgres/auth/AuthStoragePg.js"
import * as AuthTables from "../../adapters/postgres/auth/AuthTables.js"
import * as SigningKeyStorePg from "../../adapters/postgres/auth/SigningKeyStorePg.js"
import * as Database from "../../adapters/postgres/Database.js"
import * as RateLimiterPg from "../../adapters/postgres/RateLimiterPg.js"
import * as SimpleWebAuthnCeremonies from "../../adapters/webauthn/auth/SimpleWebAuthnCeremonies.js"
import * as JwtSettingsModule from "../../application/auth/JwtSettings.js"
import { JwtSettings } from "../../application/auth/JwtSettings.js"
import * as SigningKey from "../../domain/auth/SigningKey.js"
import * as DatabaseReach from "../DatabaseReach.js"
import type { AuthConfig, DatabaseConfig } from "./AuthConfig.js"

/** How long statements may wait; the operator commands wait as long as migrations take. */
export type Timeouts = Pick<Database.DatabaseOptions, "connectTimeout" | "queryTimeout">

/**
 * `DATABASE_URL`, else embedded PGlite under `$LATCHKEY_DATA_DIR/auth`; `DB_MAX_POOL_SIZE` caps
 * the pool. A database that cannot be reached is told with the variable that names it.
 */
export const database = (
  config: { readonly db: DatabaseConfig; readonly logLevel: AuthConfig["telemetry"]["logLevel"] },
  timeouts: Timeouts = {}
) =>
  Database.layer({
    url: config.db.url,
    dataDir: Option.some(config.db.dataDir),
    urlVariable: "DATABASE_URL",
    ...Option.match(config.db.maxPoolSize, {
      onNone: () => ({}),
      onSome: (max) => ({ maxConnections: max })
    }),
    preparedStatements: config.db.preparedStatements,
    ...Option.match(config.db.connMaxIdleTime, {
      onNone: () => ({}),
      onSome: (idle) => ({ idleTimeout: idle })
    }),
    ...timeouts
  }).pipe(
    Layer.provideMerge(Logger.minimumLogLevel(config.logLevel)),
    DatabaseReach.naming("auth", Option.as(config.db.url, config.db.urlVariable))
  )

/**
 * The access-token settings of the configuration. `keyCacheLifetime`: how long an instance
 * reuses the stored keys it read (30 s; tests of rotation read them on every request).
 */
export const jwtSettings = (
  config: AuthConfig,
  keyCacheLifetime: Duration.DurationInput = JwtSettingsModule.defaultKeyCacheLifetime
) =>
  Layer.succeed(JwtSettings, {
    // Unset, the service names itself by the URL clients reach it at.
    issuer: Option.getOrElse(config.jwt.issuer, () => config.api.externalUrl),
    lifetime: Duration.seconds(config.jwt.expSeconds),
    validMethods: Option.getOrElse(config.jwt.validMethods, () => SigningKey.defaultValidMethods),
    secret: config.jwt.secret,
    keys: config.jwt.keys.map((key) => Redacted.value(key.jwk)),
    keyCacheLifetime: Duration.decode(keyCacheLifetime)
  })

/**
 * Storage (users, sessions, signing keys, rate-limit counters) on the tables of `DB_NAMESPACE`,
 * crypto, and the file system for migrations, on the configured database.
 */
export const core = (
  config: AuthConfig,
  timeouts: Timeouts = {},
  keyCacheLifetime: Duration.DurationInput = JwtSettingsModule.defaultKeyCacheLifetime
) => {
  const namespace = config.db.namespace
  const storage = Layer.mergeAll(
    AuthStoragePg.layer(namespace),
    SigningKeyStorePg.layer.pipe(Layer.provide(AuthTables.layer(namespace))),
    RateLimiterPg.layerFor(AuthTables.make(namespace).name("rate_limits")),
    AuthTables.layer(namespace)
  )
  const tokens = JoseAccessTokens.layer.pipe(Layer.provideMerge(jwtSettings(config, keyCacheLifetime)))
  return Layer.mergeAll(
    tokens,
    NodeSecrets.layer,
    OtpauthTotpCodes.layer,
    DatabaseEncryption.layer(config.atRestKeys),
    SimpleWebAuthnCeremonies.layer.pipe(Layer.provide(NodeSecrets.layer)),
    Argon2PasswordHasher.layer(),
    NodeFileSystem.layer
  ).pipe(
    Layer.provideMerge(storage),
    Layer.provideMerge(database({ db: config.db, logLevel: config.telemetry.logLevel }, timeouts))
  )
}
