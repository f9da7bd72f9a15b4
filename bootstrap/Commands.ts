import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import { pipe } from "effect/Function"
import * as Layer from "effect/Layer"
import * as AuthKeysCommand from "../adapters/cli/auth/KeysCommand.js"
import * as AuthMigrateCommand from "../adapters/cli/auth/MigrateCommand.js"
import * as AuthSourceOptions from "../adapters/cli/auth/SourceOptions.js"
import * as AuthUsersCommand from "../adapters/cli/auth/UsersCommand.js"
import * as CommandTree from "../adapters/cli/CommandTree.js"
import * as OAuthClientsCommand from "../adapters/cli/oauth/ClientsCommand.js"
import * as OAuthLoginCommand from "../adapters/cli/oauth/LoginCommand.js"
import * as OAuthMigrateCommand from "../adapters/cli/oauth/MigrateCommand.js"
import * as OAuthReapCommand from "../adapters/cli/oauth/ReapCommand.js"
import * as PlainConsole from "../adapters/cli/PlainConsole.js"
import * as JoseApiKeySigner from "../adapters/crypto/auth/JoseApiKeySigner.js"
import * as AuthTables from "../adapters/postgres/auth/AuthTables.js"
import * as Migrations from "../adapters/postgres/Migrations.js"
import * as AuthEnvironment from "./auth/AuthEnvironment.js"
import * as AuthLayers from "./auth/AuthLayers.js"
import * as AuthServer from "./auth/AuthServer.js"
import * as AuthStart from "./auth/AuthStart.js"
import * as Environment from "./CommandEnvironment.js"
import * as Failure from "./Failure.js"
import * as OAuthConfig from "./oauth/OAuthConfig.js"
import * as OAuthLayers from "./oauth/OAuthLayers.js"
import * as Services from "./Services.js"
import { version } from "./Version.js"

/** Storage on the configured database, for `latchkey oauth migrate`. */
const oauthStorage = Layer.unwrapEffect(Effect.map(OAuthConfig.database, OAuthLayers.core))

/** Storage on the configured database, for the oauth operator commands: the schema must be there. */
const oauthOperator = Layer.provideMerge(Layer.effectDiscard(Migrations.ensureCurrent("oauth")), oauthStorage)

/** The operator commands' configuration, read from the sources the command was given. */
const operatorConfig = (sources: AuthEnvironment.Sources) =>
  Effect.provideService(AuthStart.loadOperator, AuthEnvironment.ConfigSources, sources)

/** The auth database's configuration, read from the sources the command was given. */
const authDatabase = (sources: AuthEnvironment.Sources) =>
  Effect.provideService(AuthStart.loadDatabase, AuthEnvironment.ConfigSources, sources)

/**
 * The auth service's operator commands run the admin API's use cases on the configured
 * database, with the service's own settings (password policy, signing keys), once they find its
 * schema there. They read only what they use (AuthStart.loadOperator), from `sources`.
 */
const authOperator = (sources: AuthEnvironment.Sources) =>
  Layer.unwrapEffect(
    Effect.map(operatorConfig(sources), (config) =>
      Layer.provideMerge(
        Layer.effectDiscard(Migrations.ensureCurrent(AuthTables.migrationTarget(config.db.namespace))),
        Layer.mergeAll(AuthServer.settings(config), AuthLayers.core(config))
      )
    )
  )

/** The auth service's settings alone, for `keys api`: no database is opened. */
const authConfiguration = (sources: AuthEnvironment.Sources) =>
  Layer.unwrapEffect(
    Effect.map(operatorConfig(sources), (config) =>
      Layer.mergeAll(AuthServer.settings(config), AuthLayers.jwtSettings(config), JoseApiKeySigner.layer)
    )
  )

const authMigrate = AuthMigrateCommand.make((sources) =>
  Effect.map(authDatabase(sources), ({ db }) => AuthTables.migrationTarget(db.namespace))
).pipe(
  Command.provide((sources) =>
    Layer.unwrapEffect(
      Effect.map(authDatabase(sources), (config) =>
        Layer.merge(AuthLayers.database(config), NodeFileSystem.layer)
      )
    )
  )
)

const auth = CommandTree.group(
  "auth",
  "The user management and authentication service (Supabase Auth compatible).",
  [
    CommandTree.leaf(
      Command.make("serve", AuthSourceOptions.sources, (sources) =>
        Effect.provideService(Services.serveAuth, AuthEnvironment.ConfigSources, sources)
      ).pipe(Command.withDescription("Start the auth service (it applies its migrations first).")),
      Environment.authServe
    ),
    CommandTree.leaf(authMigrate, Environment.authDatabase),
    pipe(
      AuthUsersCommand.command(authOperator),
      CommandTree.reading([...Environment.authDatabase, ...Environment.authUsers]),
      CommandTree.readingAt(["create"], Environment.authUserCreation)
    ),
    CommandTree.reading([...Environment.authDatabase, ...Environment.authKeys])(
      AuthKeysCommand.command(authOperator, authConfiguration)
    )
  ]
)

const oauth = CommandTree.group("oauth", "The OAuth 2.1 authorization server.", [
  CommandTree.leaf(
    Command.make("serve", {}, () => Services.serveOAuth).pipe(
      Command.withDescription("Start the oauth service (the schema must be migrated first).")
    ),
    Environment.oauthServe
  ),
  CommandTree.leaf(OAuthMigrateCommand.make(OAuthConfig.cliClientId).pipe(Command.provide(oauthStorage)), [
    ...Environment.oauthDatabase,
    ...Environment.oauthMigrate
  ]),
  pipe(
    OAuthClientsCommand.command(oauthOperator),
    CommandTree.reading(Environment.oauthDatabase),
    CommandTree.readingAt(["create"], Environment.oauthClientCreation)
  ),
  CommandTree.leaf(OAuthReapCommand.command.pipe(Command.provide(oauthOperator)), Environment.oauthDatabase),
  CommandTree.leaf(OAuthLoginCommand.command, Environment.oauthLogin)
])

/** Every `latchkey` command. */
export const latchkey = CommandTree.group(
  "latchkey",
  "Authentication infrastructure: the auth and oauth services.",
  [
    CommandTree.leaf(
      Command.make("serve", {}, () => Services.serveAll("beside")).pipe(
        Command.withDescription(
          "Start every service in this process: auth on AUTHSVC_API_PORT (8081), oauth on PORT (8080)."
        )
      ),
      Environment.serveAll
    ),
    CommandTree.leaf(
      Command.make("dev", {}, () => Services.serveAll("dev")).pipe(
        Command.withDescription(
          "Start every service on this machine's loopback, with development defaults for what is unset and the development inbox (npm start)."
        )
      ),
      Environment.dev
    ),
    auth,
    oauth
  ]
)

const program: CommandTree.Program = { name: "latchkey", version }

/** The command line `args` (as `process.argv`), run. */
export const run = CommandTree.run(latchkey, program)

/**
 * Colour codes only on a terminal, and not under `NO_COLOR` (PlainConsole): the commands' own
 * lines have none, @effect/cli's messages do.
 */
const console = Effect.map(Effect.console, (base) =>
  PlainConsole.make(base, {
    stdout: PlainConsole.colours(process.stdout.isTTY, process.env.NO_COLOR),
    stderr: PlainConsole.colours(process.stderr.isTTY, process.env.NO_COLOR)
  })
)

/** The `latchkey` commands; `args` as in `process.argv`. */
export const main = (args: ReadonlyArray<string>) =>
  Failure.report(Effect.flatMap(console, (plain) => Effect.withConsole(run(args), plain))).pipe(
    Effect.provide(NodeContext.layer),
    // Services log JSON lines (JsonLogger.ts); the commands log plainly.
    (program) => NodeRuntime.runMain(program, { disablePrettyLogger: true })
  )
