import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import { ClientId } from "../../../domain/Ids.js"

const name = Options.text("name").pipe(Options.withDescription("Human-readable client name"))
const redirectUris = Options.text("redirect-uri").pipe(
  Options.repeated,
  Options.withDescription("A redirect URI (repeat for several): https, or http on a loopback host")
)
const confidential = Options.boolean("confidential").pipe(
  Options.withDescription("A confidential web client with a secret (no refresh tokens)")
)
const clientId = Options.text("client-id").pipe(
  Options.optional,
  Options.withDescription("Use this client_id instead of a random one")
)
const secretEnv = Options.text("secret-env").pipe(
  Options.optional,
  Options.withDescription(
    "Read the client secret from this environment variable (never from the command line)"
  )
)

const create = Command.make("create", { name, redirectUris, confidential, clientId, secretEnv }, (options) =>
  Effect.gen(function* () {
    const secret = yield* Option.match(options.secretEnv, {
      onNone: () => Effect.succeedNone,
      onSome: (variable) =>
        Effect.flatMap(Config.option(Config.redacted(variable)), (value) =>
          Option.isSome(value)
            ? Effect.succeed(value)
            : Effect.fail(
                new ManageClients.InvalidClientDefinition({
                  message: `${variable} is not set (--secret-env)`
                })
              )
        )
    })
    const created = yield* ManageClients.create({
      name: options.name,
      redirectUris: options.redirectUris,
      confidential: options.confidential,
      clientId: options.clientId,
      secret
    })
    yield* Console.log(`client_id: ${created.client.id}`)
    // A secret the operator supplied is not echoed; a generated one is shown this once only.
    if (Option.isSome(created.secret) && Option.isNone(options.secretEnv)) {
      yield* Console.log(`client_secret: ${Redacted.value(created.secret.value)}`)
      yield* Console.log("(store it now: only its hash is kept)")
    }
  })
).pipe(Command.withDescription("Create an operator-seeded client; a generated secret is printed once."))

const list = Command.make("list", {}, () =>
  Effect.gen(function* () {
    const clients = yield* Effect.flatMap(ClientRepository, (repository) => repository.list)
    for (const client of clients) {
      const used = Option.match(client.lastUsedAt, {
        onNone: () => "never used",
        onSome: (d) => `used ${d.toISOString()}`
      })
      yield* Console.log(
        `${client.id}\t${client.type}\t${client.origin}\t${used}\t${client.name}\t${client.redirectUris.join(" ")}`
      )
    }
  })
).pipe(Command.withDescription("List clients: id, type, origin, last use, name, redirect URIs."))

const remove = Command.make("delete", { id: Args.text({ name: "ID" }) }, ({ id }) =>
  Effect.gen(function* () {
    const parsed = Schema.decodeUnknownOption(ClientId)(id)
    const removed = Option.isSome(parsed)
      ? yield* Effect.flatMap(ClientRepository, (repository) => repository.remove(parsed.value))
      : false
    if (!removed)
      return yield* Effect.fail(new ManageClients.InvalidClientDefinition({ message: `no client ${id}` }))
    yield* Console.log(`deleted ${id} and its tokens`)
  })
).pipe(Command.withDescription("Delete a client with its codes and tokens."))

export const command = Command.make("clients").pipe(
  Command.withDescription("Manage OAuth clients."),
  Command.withSubcommands([create, list, remove])
)
