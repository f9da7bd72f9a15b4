import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { ClientId } from "../Ids.js"
import { Client } from "./Client.js"
import * as RedirectUri from "./RedirectUri.js"

/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client
 * whose `client_id` is an https URL publishes its metadata (RFC 7591 names) at that URL, and
 * we fetch it instead of asking the client to register. A document anyone can read cannot
 * carry a shared secret, so its client is public or signs with a key it publishes.
 */

/** The fields we use; a document may carry any other RFC 7591 metadata, which is ignored. */
export class ClientMetadataDocument extends Schema.Class<ClientMetadataDocument>("ClientMetadataDocument")({
  client_id: Schema.String,
  redirect_uris: Schema.Array(Schema.String),
  client_name: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  token_endpoint_auth_method: Schema.optional(Schema.String),
  /**
   * The methods the client can use, where it names several (not an RFC 7591 member; ChatGPT's
   * documents are reported to carry it): the one it prefers is `token_endpoint_auth_method`,
   * and the server picks from these.
   */
  token_endpoint_auth_methods_supported: Schema.optional(Schema.Array(Schema.String)),
  /** Where a `private_key_jwt` client publishes the public keys its assertions are signed with. */
  jwks_uri: Schema.optional(Schema.String)
}) {}

export class InvalidClientMetadataDocument extends Schema.TaggedError<InvalidClientMetadataDocument>()(
  "InvalidClientMetadataDocument",
  { url: Schema.String, message: Schema.String }
) {}

const refuse = (url: URL, message: string) =>
  Either.left(new InvalidClientMetadataDocument({ url: url.href, message }))

/**
 * Is this raw `client_id` a metadata-document URL? The draft asks for https, a path, no
 * fragment, no user information and no dot segments, and compares ids as plain strings. We
 * also require the id to be written exactly as the URL parser writes it back (lower-case
 * scheme and host, no default port, dot segments resolved): then the id, the URL we fetch and
 * the `client_id` inside the document are one and the same string.
 */
export const parseClientIdUrl = (raw: string): Option.Option<URL> => {
  if (!raw.startsWith("https://") || raw.includes("#")) return Option.none()
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return Option.none()
  }
  if (url.href !== raw) return Option.none()
  if (url.username !== "" || url.password !== "") return Option.none()
  if (url.pathname === "/") return Option.none()
  return Option.some(url)
}

/**
 * How a document's client authenticates at our token and revocation endpoints: with nothing
 * (a public client; PKCE binds its codes), or with a JWT signed by a key it publishes at
 * `jwks_uri` (RFC 7523 `private_key_jwt`). A document cannot hold a shared secret, so no other
 * method can be offered.
 */
export type Authentication =
  | { readonly method: "none" }
  | { readonly method: "private_key_jwt"; readonly jwksUri: URL }

/** Where a key set may be fetched from: https, no user information, no fragment. */
const parseJwksUri = (raw: string): Option.Option<URL> => {
  if (!raw.startsWith("https://") || raw.includes("#")) return Option.none()
  try {
    const url = new URL(raw)
    return url.username === "" && url.password === "" ? Option.some(url) : Option.none()
  } catch {
    return Option.none()
  }
}

/**
 * The method this server takes: the one the document prefers (`token_endpoint_auth_method`,
 * `none` when absent) if we offer it, else the first we offer among the methods it lists as
 * supported (ChatGPT's documents are reported to list several).
 */
export const authenticationOf = (
  url: URL,
  document: ClientMetadataDocument
): Either.Either<Authentication, InvalidClientMetadataDocument> => {
  const candidates = [
    document.token_endpoint_auth_method ?? "none",
    ...(document.token_endpoint_auth_methods_supported ?? [])
  ]
  const method = candidates.find((candidate) => candidate === "none" || candidate === "private_key_jwt")
  if (method === undefined) {
    return refuse(
      url,
      "token_endpoint_auth_method must be none or private_key_jwt (or one of them among token_endpoint_auth_methods_supported): a public document cannot hold a shared secret"
    )
  }
  if (method === "none") return Either.right({ method })
  if (document.jwks_uri === undefined) {
    return refuse(url, "private_key_jwt needs a jwks_uri: the keys must be published at a URL")
  }
  return Option.match(parseJwksUri(document.jwks_uri), {
    onNone: () => refuse(url, "jwks_uri must be an https URL without user information or fragment"),
    onSome: (jwksUri) => Either.right({ method, jwksUri })
  })
}

/**
 * The rules a fetched document must meet before its client may take part in a flow; when it
 * meets them, how its client authenticates.
 */
const check = (
  url: URL,
  document: ClientMetadataDocument
): Either.Either<Authentication, InvalidClientMetadataDocument> => {
  // Simple string comparison (RFC 3986 §6.2.1), as the draft requires: a document hosted at
  // one URL cannot speak for a client id at another.
  if (document.client_id !== url.href) return refuse(url, "client_id does not match the document URL")
  const authentication = authenticationOf(url, document)
  if (Either.isLeft(authentication)) return authentication
  if (document.redirect_uris.length === 0) return refuse(url, "redirect_uris must not be empty")
  const valid = RedirectUri.validateAll(document.redirect_uris)
  return Either.isLeft(valid) ? refuse(url, valid.left.message) : authentication
}

/** The rules a fetched document must meet before its client may take part in a flow. */
export const validate = (
  url: URL,
  document: ClientMetadataDocument
): Either.Either<ClientMetadataDocument, InvalidClientMetadataDocument> =>
  Either.map(check(url, document), () => document)

/** Decodes a parsed JSON body and validates it against the URL it was fetched from. */
export const parse = (
  url: URL,
  body: unknown
): Either.Either<ClientMetadataDocument, InvalidClientMetadataDocument> =>
  Schema.decodeUnknownEither(ClientMetadataDocument, { onExcessProperty: "ignore" })(body).pipe(
    Either.mapLeft((error) => {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
      const where = issue === undefined || issue.path.length === 0 ? "" : `${issue.path.join(".")}: `
      return new InvalidClientMetadataDocument({
        url: url.href,
        message: `not a client metadata document: ${where}${issue?.message ?? "malformed"}`
      })
    }),
    Either.flatMap((document) => validate(url, document))
  )

/**
 * The client a valid document describes: public, of origin `metadata_document`, named by
 * `client_name` or else by the host that publishes it (what a consent page can show), with the
 * URL of its keys when it signs its requests.
 */
export const toClient = (
  url: URL,
  document: ClientMetadataDocument,
  now: Date
): Either.Either<Client, InvalidClientMetadataDocument> =>
  Either.zipWith(
    check(url, document),
    Schema.decodeEither(ClientId)(url.href).pipe(
      Either.mapLeft(
        () =>
          new InvalidClientMetadataDocument({ url: url.href, message: "the URL is not a valid client_id" })
      )
    ),
    // Every field was validated by `check`; the class need not check them again (this runs on
    // every request of a metadata-document client).
    (authentication, id) =>
      new Client(
        {
          id,
          name: document.client_name ?? url.host,
          type: "public",
          origin: "metadata_document",
          redirectUris: [...new Set(document.redirect_uris)],
          secretHash: Option.none(),
          jwksUri:
            authentication.method === "private_key_jwt"
              ? Option.some(authentication.jwksUri.href)
              : Option.none(),
          createdAt: now,
          lastUsedAt: Option.none()
        },
        true
      )
  )
