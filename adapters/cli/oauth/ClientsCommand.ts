import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import { ClientId } from "../../../domain/Ids.js"
import * as CommandTree from "../CommandTree.js"

const name = Options.text("name").pipe(
  Options.withPseudoName("NAME"),
  Options.withDescription("The client's name, as the consent page shows it")
)
const redirectUris = Options.text("redirect-uri").pipe(
  Options.withPseudoName("URI"),
  Options.repeated,
  Options.withDescription(
    "A redirect URI (repeat for several): https, http on a loopback host, or an app's own scheme"
  )
)
const confidential = Options.boolean("confidential").pipe(
  Options.withDescription("A confidential web client with a secret (no refresh tokens)")
)
const clientId = Options.text("client-id").pipe(
  Options.withPseudoName("ID"),
  Options.optional,
  Options.withDescription("Use this client_id instead of a random one")
)
const secretEnv = Options.text("secret-env").pipe(
  Options.withPseudoName("VARIABLE"),
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

const id = Args.text({ name: "ID" }).pipe(
  Args.withDescription("The client_id of the client to delete, as `latchkey oauth clients list` shows it")
)

const remove = Command.make("delete", { id }, ({ id }) =>
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

/** What the clients commands run with: the clients' store and the secrets' hashing. */
export type Services = CommandTree.Needs<typeof create | typeof list | typeof remove>

/** `latchkey oauth clients`, each command given `services` once its words have parsed. */
export const command = <E>(services: Layer.Layer<Services, E>) =>
  CommandTree.group(
    "clients",
    "The OAuth clients: seeded by an operator, or registered by themselves (RFC 7591).",
    [
      CommandTree.leaf(Command.provide(create, services)),
      CommandTree.leaf(Command.provide(list, services)),
      CommandTree.leaf(Command.provide(remove, services))
    ]
  )
