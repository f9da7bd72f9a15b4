import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as OAuthClientsCommand from "../adapters/cli/oauth/ClientsCommand.js"
import * as OAuthLoginCommand from "../adapters/cli/oauth/LoginCommand.js"
import * as OAuthMigrateCommand from "../adapters/cli/oauth/MigrateCommand.js"
import * as OAuthReapCommand from "../adapters/cli/oauth/ReapCommand.js"
import * as Failure from "./Failure.js"
import * as OAuthConfig from "./oauth/OAuthConfig.js"
import * as OAuthLayers from "./oauth/OAuthLayers.js"
import * as Services from "./Services.js"
import { version } from "./Version.js"

/** Storage on the configured database, for the operator commands. */
const storage = Layer.unwrapEffect(Effect.map(OAuthConfig.database, OAuthLayers.core))

const serveAll = Command.make("serve", {}, () => Services.serveAll).pipe(
  Command.withDescription("Start every configured service in this process (today: the oauth service).")
)

const serve = Command.make("serve", {}, () => Services.serveOAuth).pipe(
  Command.withDescription("Start the oauth service (the schema must be migrated first).")
)

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
  Command.withSubcommands([serveAll, oauth])
)

const run = Command.run(latchkey, { name: "latchkey", version })

/** The `latchkey` commands, parsed by @effect/cli; `args` as in `process.argv`. */
export const main = (args: ReadonlyArray<string>) =>
  Failure.report(run(args)).pipe(
    Effect.provide(NodeContext.layer),
    // Services log JSON lines (JsonLogger.ts); the commands log plainly.
    (program) => NodeRuntime.runMain(program, { disablePrettyLogger: true })
  )
