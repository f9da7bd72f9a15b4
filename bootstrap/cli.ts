#!/usr/bin/env node
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { ConfigError, Console, Effect, Layer } from "effect"
import * as OAuthClientsCommand from "../adapters/cli/oauth/ClientsCommand.js"
import * as OAuthLoginCommand from "../adapters/cli/oauth/LoginCommand.js"
import * as OAuthMigrateCommand from "../adapters/cli/oauth/MigrateCommand.js"
import * as OAuthReapCommand from "../adapters/cli/oauth/ReapCommand.js"
import * as ConfigReport from "./ConfigReport.js"
import * as OAuthConfig from "./oauth/OAuthConfig.js"
import * as OAuthLayers from "./oauth/OAuthLayers.js"
import * as OAuthServer from "./oauth/OAuthServer.js"

/** Storage on the configured database, for the operator commands. */
const storage = Layer.unwrapEffect(Effect.map(OAuthConfig.database, OAuthLayers.core))

const serve = Command.make("serve", {}, () =>
  Effect.flatMap(OAuthConfig.server, (config) => Layer.launch(OAuthServer.serve(config)))
).pipe(Command.withDescription("Start the oauth service (the schema must be migrated first)."))

const migrate = OAuthMigrateCommand.make(OAuthConfig.cliClientId).pipe(Command.provide(storage))

const oauth = Command.make("oauth").pipe(
  Command.withDescription("The OAuth 2.1 authorization server."),
  Command.withSubcommands([
    serve,
    migrate,
    OAuthClientsCommand.command.pipe(Command.provide(storage)),
    OAuthReapCommand.command.pipe(Command.provide(storage)),
    OAuthLoginCommand.command
  ])
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

const hasTag = (error: unknown): error is { readonly _tag: string; readonly message: string } =>
  typeof error === "object" && error !== null && "_tag" in error && "message" in error

run(process.argv).pipe(
  Effect.catchAll((error: unknown) => {
    if (ConfigError.isConfigError(error)) {
      return failWith(ConfigReport.lines(error).map((line) => `configuration: ${line}`))
    }
    if (hasTag(error)) {
      const cause = "cause" in error && error.cause instanceof Error ? `: ${error.cause.message}` : ""
      switch (error._tag) {
        case "SqlError":
          return failWith([`database: ${error.message}${cause}`])
        case "ValidationError":
          // @effect/cli has already printed the usage problem.
          return Effect.sync(() => {
            process.exitCode = 1
          })
        default:
          return failWith([String(error.message)])
      }
    }
    return failWith([String(error)])
  }),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain
)
