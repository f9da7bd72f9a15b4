import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AuthKeysCommand from "../adapters/cli/auth/KeysCommand.js"
import * as AuthMigrateCommand from "../adapters/cli/auth/MigrateCommand.js"
import * as AuthUsersCommand from "../adapters/cli/auth/UsersCommand.js"
import * as OAuthClientsCommand from "../adapters/cli/oauth/ClientsCommand.js"
import * as OAuthLoginCommand from "../adapters/cli/oauth/LoginCommand.js"
import * as OAuthMigrateCommand from "../adapters/cli/oauth/MigrateCommand.js"
import * as OAuthReapCommand from "../adapters/cli/oauth/ReapCommand.js"
import * as AuthTables from "../adapters/postgres/auth/AuthTables.js"
import * as Migrations from "../adapters/postgres/Migrations.js"
import * as AuthLayers from "./auth/AuthLayers.js"
import * as AuthServer from "./auth/AuthServer.js"
import * as AuthStart from "./auth/AuthStart.js"
import * as Failure from "./Failure.js"
import * as OAuthConfig from "./oauth/OAuthConfig.js"
import * as OAuthLayers from "./oauth/OAuthLayers.js"
import * as Services from "./Services.js"
import { version } from "./Version.js"

/** Storage on the configured database, for `latchkey oauth migrate`. */
const storage = Layer.unwrapEffect(Effect.map(OAuthConfig.database, OAuthLayers.core))

/** Storage on the configured database, for the oauth operator commands: the schema must be there. */
const oauthOperator = Layer.provideMerge(Layer.effectDiscard(Migrations.ensureCurrent("oauth")), storage)

const serveAll = Command.make("serve", {}, () => Services.serveAll("beside")).pipe(
  Command.withDescription(
    "Start every service in this process: auth on AUTHSVC_API_PORT (8081), oauth on PORT (8080)."
  )
)

const dev = Command.make("dev", {}, () => Services.serveAll("dev")).pipe(
  Command.withDescription("Start every service with development defaults for what is unset (npm start).")
)

/**
 * The auth service's operator commands run the admin API's use cases on the configured
 * database, with the service's own settings (password policy, signing keys), once they find its
 * schema there. They read only what they use (AuthStart.loadOperator).
 */
const authServices = Layer.unwrapEffect(
  Effect.map(AuthStart.loadOperator, (config) =>
    Layer.provideMerge(
      Layer.effectDiscard(Migrations.ensureCurrent(AuthTables.migrationTarget(config.db.namespace))),
      Layer.mergeAll(AuthServer.settings(config), AuthLayers.core(config))
    )
  )
)

const auth = Command.make("auth").pipe(
  Command.withDescription("The user management and authentication service (Supabase Auth compatible)."),
  Command.withSubcommands([
    Command.make("serve", {}, () => Services.serveAuth).pipe(
      Command.withDescription("Start the auth service (it applies its migrations first).")
    ),
    AuthMigrateCommand.make(
      Effect.map(AuthStart.loadDatabase, ({ db }) => AuthTables.migrationTarget(db.namespace))
    ).pipe(
      Command.provide(
        Layer.unwrapEffect(
          Effect.map(AuthStart.loadDatabase, (config) =>
            Layer.merge(AuthLayers.database(config), NodeFileSystem.layer)
          )
        )
      )
    ),
    AuthKeysCommand.command.pipe(Command.provide(authServices)),
    AuthUsersCommand.command.pipe(Command.provide(authServices))
  ])
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
    OAuthClientsCommand.command.pipe(Command.provide(oauthOperator)),
    OAuthReapCommand.command.pipe(Command.provide(oauthOperator)),
    OAuthLoginCommand.command
  ])
)

const latchkey = Command.make("latchkey").pipe(
  Command.withDescription("latchkey: authentication infrastructure."),
  Command.withSubcommands([serveAll, dev, auth, oauth])
)

const run = Command.run(latchkey, { name: "latchkey", version })

/** The `latchkey` commands, parsed by @effect/cli; `args` as in `process.argv`. */
export const main = (args: ReadonlyArray<string>) =>
  Failure.report(run(args)).pipe(
    Effect.provide(NodeContext.layer),
    // Services log JSON lines (JsonLogger.ts); the commands log plainly.
    (program) => NodeRuntime.runMain(program, { disablePrettyLogger: true })
  )
