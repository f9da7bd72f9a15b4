import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { ClientId } from "../../domain/Ids.js"
import { Client } from "../../domain/oauth/Client.js"
import * as RedirectUri from "../../domain/oauth/RedirectUri.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import { ClientRepository } from "./ports/ClientRepository.js"

export class InvalidClientDefinition extends Schema.TaggedError<InvalidClientDefinition>()(
  "InvalidClientDefinition",
  { message: Schema.String }
) {}

/** Loopback redirect URIs of the built-in CLI client; any port matches (RFC 8252 §7.3). */
export const cliRedirectUris = [
  "http://127.0.0.1/callback",
  "http://[::1]/callback",
  "http://localhost/callback"
]

/**
 * Operator-supplied secrets are hashed with SHA-256 like generated ones, which is only sound
 * for high-entropy values: require at least 32 characters.
 */
const minimumSecretLength = 32

export interface CreateClient {
  readonly name: string
  readonly redirectUris: ReadonlyArray<string>
  readonly confidential: boolean
  readonly clientId: Option.Option<string>
  readonly secret: Option.Option<Redacted.Redacted<string>>
}

/** `latchkey oauth clients create`: an operator-seeded client; the secret is shown once. */
export const create = Telemetry.fn("ManageClients.create")((definition: CreateClient) =>
  Effect.gen(function* () {
    if (definition.redirectUris.length === 0) {
      return yield* new InvalidClientDefinition({ message: "at least one --redirect-uri is required" })
    }
    const valid = RedirectUri.validateAll(definition.redirectUris)
    if (Either.isLeft(valid)) return yield* new InvalidClientDefinition({ message: valid.left.message })
    if (!definition.confidential && Option.isSome(definition.secret)) {
      return yield* new InvalidClientDefinition({ message: "a public client has no secret" })
    }
    if (Option.exists(definition.secret, (s) => Redacted.value(s).length < minimumSecretLength)) {
      return yield* new InvalidClientDefinition({
        message: `a client secret must be at least ${minimumSecretLength} characters`
      })
    }
    const secrets = yield* Secrets
    const rawId = yield* Option.match(definition.clientId, {
      onNone: () => secrets.uuid,
      onSome: Effect.succeed
    })
    const id = yield* Schema.decodeUnknown(ClientId)(rawId).pipe(
      Effect.mapError(
        () => new InvalidClientDefinition({ message: "client id must be printable ASCII without spaces" })
      )
    )
    const secret = definition.confidential
      ? Option.some(
          yield* Option.match(definition.secret, {
            onNone: () => secrets.token("client_secret"),
            onSome: Effect.succeed
          })
        )
      : Option.none()
    const secretHash = yield* Effect.transposeOption(
      Option.map(secret, (s) => Effect.flatMap(Secrets, (secrets) => secrets.hash(s)))
    )
    const now = new Date(yield* Clock.currentTimeMillis)
    const client = new Client({
      id,
      name: definition.name,
      type: definition.confidential ? "confidential" : "public",
      origin: "seeded",
      // Each once, as registration keeps them.
      redirectUris: [...valid.right],
      secretHash,
      createdAt: now,
      lastUsedAt: Option.none()
    })
    yield* Effect.flatMap(ClientRepository, (clients) => clients.insert(client)).pipe(
      Effect.mapError(
        (error) => new InvalidClientDefinition({ message: `client ${error.clientId} already exists` })
      )
    )
    return { client, secret }
  })
)

/** Seeds the built-in public CLI client; idempotent (an existing client is left as it is). */
export const seedBuiltinCliClient = Telemetry.fn("ManageClients.seedBuiltinCliClient")((clientId: ClientId) =>
  Effect.gen(function* () {
    const now = new Date(yield* Clock.currentTimeMillis)
    const client = new Client({
      id: clientId,
      name: "latchkey CLI",
      type: "public",
      origin: "builtin",
      redirectUris: cliRedirectUris,
      secretHash: Option.none(),
      createdAt: now,
      lastUsedAt: Option.none()
    })
    return yield* Effect.flatMap(ClientRepository, (clients) => clients.insert(client)).pipe(
      Effect.as(true),
      Effect.catchTag("ClientAlreadyExists", () => Effect.succeed(false))
    )
  })
)
