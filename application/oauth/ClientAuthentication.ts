import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Equivalence from "effect/Equivalence"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { ClientId } from "../../domain/Ids.js"
import type { Client } from "../../domain/oauth/Client.js"
import * as ClientMetadataDocument from "../../domain/oauth/ClientMetadataDocument.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import { invalidClient, type OAuthError } from "./OAuthError.js"
import type { OAuthSettings } from "./OAuthSettings.js"
import type { ClientKeys } from "./ports/ClientKeys.js"
import { ClientMetadataFetcher } from "./ports/ClientMetadataFetcher.js"
import { ClientRepository } from "./ports/ClientRepository.js"
import type { UsedAssertions } from "./ports/UsedAssertions.js"
import { verifyClientAssertion } from "./VerifyClientAssertion.js"

/** What the token and revocation endpoints learned about the calling client. */
export interface Credentials {
  readonly clientId: Option.Option<string>
  readonly secret: Option.Option<Redacted.Redacted<string>>
  /** A `client_assertion` of type `ClientAssertion.assertionType` (RFC 7523 §2.2). */
  readonly assertion: Option.Option<Redacted.Redacted<string>>
}

const sameJwksUri = Option.getEquivalence(Equivalence.string)

/** Does the stored row already say what the document says? Then it need not be written. */
const mirrors = (stored: Client, described: Client): boolean =>
  stored.name === described.name &&
  stored.type === described.type &&
  sameJwksUri(stored.jwksUri, described.jwksUri) &&
  stored.redirectUris.length === described.redirectUris.length &&
  stored.redirectUris.every((uri, i) => uri === described.redirectUris[i])

/**
 * A client described by the Client ID Metadata Document at `url`. The document is the
 * authority, so it is fetched (or taken from the fetcher's cache) on every use, and a document
 * that is gone or invalid makes the client unknown even when a row remains. The row exists
 * because codes, pending logins and tokens reference the client; it is written only when the
 * document says something new. While its publisher is down, the row — the document as last
 * fetched and validated — stands in: an unknown client is `invalid_client`, which MCP clients
 * take as "forget this client and its tokens", and an outage at the client's host would
 * otherwise sign every one of its users out. A publisher that answers the document is gone
 * ends the client: its row goes, with its codes and tokens, so that no later outage (a lapsed
 * domain no longer resolves) can bring the old copy back.
 */
const fromMetadataDocument = (url: URL, stored: Option.Option<Client>) =>
  Effect.gen(function* () {
    const fetched = yield* Effect.either(
      Effect.flatMap(ClientMetadataFetcher, (fetcher) => fetcher.fetch(url))
    )
    if (Either.isLeft(fetched)) {
      if (Option.isSome(stored) && fetched.left.answer === "down") {
        yield* Effect.logWarning(
          "client metadata document unreachable; the copy fetched last serves meanwhile",
          fetched.left.reason
        )
        return stored
      }
      if (Option.isSome(stored) && fetched.left.answer === "gone") {
        yield* Effect.flatMap(ClientRepository, (clients) => clients.remove(stored.value.id))
        yield* Effect.logInfo("client metadata document gone; the client and its tokens are removed")
        return Option.none<Client>()
      }
      yield* Effect.logInfo("client metadata document unavailable", fetched.left.reason)
      return Option.none<Client>()
    }
    const now = new Date(yield* Clock.currentTimeMillis)
    const described = ClientMetadataDocument.toClient(url, fetched.right, now)
    if (Either.isLeft(described)) {
      yield* Effect.logInfo("client metadata document refused", described.left.message)
      return Option.none<Client>()
    }
    if (Option.isSome(stored) && mirrors(stored.value, described.right)) return stored
    const clients = yield* ClientRepository
    return yield* clients.upsert(described.right).pipe(
      Effect.map(Option.some),
      // Someone stored a client of another origin under this id meanwhile: theirs prevails.
      Effect.catchTag("ClientAlreadyExists", () => clients.findById(described.right.id))
    )
  }).pipe(Effect.annotateLogs("client.id", url.href))

/**
 * Finds a client by an id taken from a request; a malformed id is simply unknown. A stored
 * client of any other origin wins; otherwise an id that is an https URL names a Client ID
 * Metadata Document (draft-ietf-oauth-client-id-metadata-document), fetched to learn the client.
 */
export const findClient: (
  raw: string
) => Effect.Effect<Option.Option<Client>, never, ClientRepository | ClientMetadataFetcher> = Telemetry.fn(
  "ClientAuthentication.findClient"
)((raw: string) =>
  Effect.gen(function* () {
    const id = Schema.decodeUnknownOption(ClientId)(raw)
    if (Option.isNone(id)) return Option.none<Client>()
    const stored = yield* Effect.flatMap(ClientRepository, (clients) => clients.findById(id.value))
    if (Option.isSome(stored) && stored.value.origin !== "metadata_document") return stored
    const url = ClientMetadataDocument.parseClientIdUrl(raw)
    if (Option.isNone(url)) return Option.none<Client>()
    return yield* fromMetadataDocument(url.value, stored)
  })
)

/**
 * Authenticates the calling client: confidential clients by secret (RFC 6749 §2.3.1), clients
 * that publish keys by a signed assertion (RFC 7523), other public clients by id only — they
 * prove possession with PKCE or a refresh token bound to them.
 */
export const authenticate: (
  credentials: Credentials
) => Effect.Effect<
  Client,
  OAuthError,
  ClientRepository | ClientMetadataFetcher | Secrets | ClientKeys | UsedAssertions | OAuthSettings
> = Telemetry.fn("ClientAuthentication.authenticate")(
  (credentials: Credentials) =>
    Effect.gen(function* () {
      if (Option.isNone(credentials.clientId))
        return yield* invalidClient("client authentication is required")
      const found = yield* findClient(credentials.clientId.value)
      if (Option.isNone(found)) return yield* invalidClient("unknown client")
      const client = found.value
      if (client.type === "public") {
        if (Option.isSome(credentials.secret)) return yield* invalidClient("a public client has no secret")
        if (Option.isSome(client.jwksUri)) {
          if (Option.isNone(credentials.assertion)) {
            return yield* invalidClient(
              "this client authenticates with private_key_jwt: client_assertion is required"
            )
          }
          yield* verifyClientAssertion(client, client.jwksUri.value, credentials.assertion.value)
          return client
        }
        if (Option.isSome(credentials.assertion)) {
          return yield* invalidClient("this client publishes no keys to verify a client_assertion with")
        }
        return client
      }
      if (Option.isSome(credentials.assertion)) {
        return yield* invalidClient("this client authenticates with its secret, not with client_assertion")
      }
      if (Option.isNone(credentials.secret) || Option.isNone(client.secretHash)) {
        return yield* invalidClient("client authentication failed")
      }
      const secrets = yield* Secrets
      const valid = yield* secrets.verify(credentials.secret.value, client.secretHash.value)
      if (!valid) return yield* invalidClient("client authentication failed")
      return client
    }),
  (credentials) =>
    Option.match(credentials.clientId, {
      onNone: () => ({}),
      onSome: (id) => ({ "client.id": id })
    })
)
