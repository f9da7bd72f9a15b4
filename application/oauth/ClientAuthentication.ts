import { Effect, Option, type Redacted, Schema } from "effect"
import type { Client } from "../../domain/Client.js"
import { ClientId } from "../../domain/Ids.js"
import { ClientRepository } from "../ports/ClientRepository.js"
import { SecretHasher } from "../ports/SecretHasher.js"
import { invalidClient, type OAuthError } from "./OAuthError.js"

/** What the token and revocation endpoints learned about the calling client. */
export interface Credentials {
  readonly clientId: Option.Option<string>
  readonly secret: Option.Option<Redacted.Redacted<string>>
}

/** Finds a client by an id taken from a request; a malformed id is simply unknown. */
export const findClient = (raw: string): Effect.Effect<Option.Option<Client>, never, ClientRepository> =>
  Option.match(Schema.decodeUnknownOption(ClientId)(raw), {
    onNone: () => Effect.succeedNone,
    onSome: (id) => Effect.flatMap(ClientRepository, (clients) => clients.findById(id))
  })

/**
 * Authenticates the calling client: confidential clients by secret (RFC 6749 §2.3.1), public
 * clients by id only — they prove possession with PKCE or a refresh token bound to them.
 */
export const authenticate = (
  credentials: Credentials
): Effect.Effect<Client, OAuthError, ClientRepository | SecretHasher> =>
  Effect.gen(function* () {
    if (Option.isNone(credentials.clientId)) return yield* invalidClient("client authentication is required")
    const found = yield* findClient(credentials.clientId.value)
    if (Option.isNone(found)) return yield* invalidClient("unknown client")
    const client = found.value
    yield* Effect.annotateCurrentSpan("client.id", client.id)
    if (client.type === "public") {
      if (Option.isSome(credentials.secret)) return yield* invalidClient("a public client has no secret")
      return client
    }
    if (Option.isNone(credentials.secret) || Option.isNone(client.secretHash)) {
      return yield* invalidClient("client authentication failed")
    }
    const hasher = yield* SecretHasher
    const valid = yield* hasher.verify(credentials.secret.value, client.secretHash.value)
    if (!valid) return yield* invalidClient("client authentication failed")
    return client
  }).pipe(Effect.withSpan("ClientAuthentication.authenticate"))
