#!/usr/bin/env node
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { ConfigError, Console, Effect, Layer, Logger, Option } from "effect"
import * as OAuthMigrateCommand from "../adapters/cli/OAuthMigrateCommand.js"
import * as Database from "../adapters/postgres/Database.js"
import * as ConfigReport from "./ConfigReport.js"
import * as OAuthConfig from "./OAuthConfig.js"

/** The oauth database from configuration: SQL_URL, else embedded PGlite under LATCHKEY_DATA_DIR. */
const oauthDatabase = Layer.unwrapEffect(
  Effect.map(OAuthConfig.database, (config) =>
    Database.layer({ url: config.sqlUrl, dataDir: Option.some(config.dataDir) }).pipe(
      Layer.provideMerge(Logger.minimumLogLevel(config.logLevel))
    )
  )
)

const oauth = Command.make("oauth").pipe(
  Command.withDescription("The OAuth 2.1 authorization server."),
  Command.withSubcommands([OAuthMigrateCommand.command.pipe(Command.provide(oauthDatabase))])
)

const latchkey = Command.make("latchkey").pipe(
  Command.withDescription("latchkey: authentication infrastructure."),
  Command.withSubcommands([oauth])
)

const run = Command.run(latchkey, { name: "latchkey", version: "0.1.0" })

/** Start-up failures end in one line per problem and exit code 1, never a stack trace. */
const failWith = (lines: ReadonlyArray<string>) =>
  Effect.zipRight(
    Effect.forEach(lines, (line) => Console.error(`latchkey: ${line}`)),
    Effect.sync(() => {
      process.exitCode = 1
    })
  )

run(process.argv).pipe(
  Effect.catchIf(ConfigError.isConfigError, (error) =>
    failWith(ConfigReport.lines(error).map((line) => `configuration: ${line}`))
  ),
  Effect.catchTags({
    EmbeddedDatabaseError: (error) => failWith([error.message]),
    SqlError: (error) =>
      failWith([
        `database: ${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ""}`
      ]),
    MigrationError: (error) => failWith([`migration: ${error.message}`])
  }),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain
)
