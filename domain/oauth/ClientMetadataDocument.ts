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
 * we fetch it instead of asking the client to register. Only public clients are admitted: a
 * document anyone can read cannot carry a shared secret.
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
  token_endpoint_auth_methods_supported: Schema.optional(Schema.Array(Schema.String))
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
 * Can the client authenticate as a public one, with no credential at the token endpoint (and
 * PKCE)? It says so by preferring `none`, or by listing it among the methods it supports while
 * preferring one this server does not offer: ChatGPT's documents are reported to prefer
 * `private_key_jwt` and list `none`, which it uses with a server that does not advertise the
 * other.
 */
const canBePublic = (document: ClientMetadataDocument): boolean => {
  const preferred = document.token_endpoint_auth_method
  return (
    preferred === undefined ||
    preferred === "none" ||
    (document.token_endpoint_auth_methods_supported?.includes("none") ?? false)
  )
}

/** The rules a fetched document must meet before its client may take part in a flow. */
export const validate = (
  url: URL,
  document: ClientMetadataDocument
): Either.Either<ClientMetadataDocument, InvalidClientMetadataDocument> => {
  // Simple string comparison (RFC 3986 §6.2.1), as the draft requires: a document hosted at
  // one URL cannot speak for a client id at another.
  if (document.client_id !== url.href) return refuse(url, "client_id does not match the document URL")
  if (!canBePublic(document)) {
    return refuse(
      url,
      "only public clients may use a metadata document: token_endpoint_auth_method must be none, or none among token_endpoint_auth_methods_supported"
    )
  }
  if (document.redirect_uris.length === 0) return refuse(url, "redirect_uris must not be empty")
  const valid = RedirectUri.validateAll(document.redirect_uris)
  return Either.isLeft(valid) ? refuse(url, valid.left.message) : Either.right(document)
}

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
 * `client_name` or else by the host that publishes it (what a consent page can show).
 */
export const toClient = (
  url: URL,
  document: ClientMetadataDocument,
  now: Date
): Either.Either<Client, InvalidClientMetadataDocument> =>
  Either.flatMap(validate(url, document), (valid) =>
    Either.map(
      Schema.decodeEither(ClientId)(url.href).pipe(
        Either.mapLeft(
          () =>
            new InvalidClientMetadataDocument({ url: url.href, message: "the URL is not a valid client_id" })
        )
      ),
      // Every field was validated just above; the class need not check them again (this runs on
      // every request of a metadata-document client).
      (id) =>
        new Client(
          {
            id,
            name: valid.client_name ?? url.host,
            type: "public",
            origin: "metadata_document",
            redirectUris: [...new Set(valid.redirect_uris)],
            secretHash: Option.none(),
            createdAt: now,
            lastUsedAt: Option.none()
          },
          true
        )
    )
  )
