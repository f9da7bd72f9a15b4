import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { OAuthError } from "../../../application/oauth/OAuthError.js"
import { type Registered, type RegistrationRequest, register } from "../../../application/oauth/Register.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as JsonBody from "../JsonBody.js"
import { json as answer } from "./Json.js"
import { OAuthHttpConfig } from "./OAuthHttpConfig.js"

/** RFC 7591 §2: the client metadata a public client may register; other members are ignored. */
const Metadata = Schema.Struct({
  redirect_uris: Schema.Array(Schema.String),
  token_endpoint_auth_method: Schema.optional(Schema.Literal("none")),
  grant_types: Schema.optional(Schema.Array(Schema.Literal("authorization_code", "refresh_token"))),
  response_types: Schema.optional(Schema.Array(Schema.Literal("code"))),
  client_name: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  client_uri: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))),
  logo_uri: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))),
  scope: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))),
  software_id: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  software_version: Schema.optional(Schema.String.pipe(Schema.maxLength(200)))
})

const decodeMetadata = Schema.decodeUnknownEither(Metadata, { onExcessProperty: "ignore" })

const metadataError = (code: "invalid_client_metadata" | "invalid_redirect_uri", description: string) =>
  new OAuthError({ code, description })

/** RFC 7591 §3.2.2: which field is wrong, in the error code the RFC gives it. */
const decode = (body: unknown): Either.Either<RegistrationRequest, OAuthError> =>
  decodeMetadata(body).pipe(
    Either.mapLeft((error) => {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
      const field = issue?.path[0]
      if (typeof body === "object" && body !== null && !Array.isArray(body) && !("redirect_uris" in body)) {
        return metadataError("invalid_redirect_uri", "redirect_uris is required")
      }
      if (field === "redirect_uris") {
        return metadataError("invalid_redirect_uri", "redirect_uris must be an array of URIs")
      }
      if (field === "token_endpoint_auth_method") {
        return metadataError(
          "invalid_client_metadata",
          "only public clients may register: token_endpoint_auth_method must be none"
        )
      }
      return metadataError(
        "invalid_client_metadata",
        field === undefined
          ? "the body must be a JSON object"
          : `${String(field)} is invalid: ${issue?.message ?? ""}`
      )
    }),
    Either.map(
      (metadata): RegistrationRequest => ({
        redirectUris: metadata.redirect_uris,
        grantTypes: Option.fromNullable(metadata.grant_types),
        clientName: Option.fromNullable(metadata.client_name)
      })
    )
  )

const seconds = (date: Date) => Math.floor(date.getTime() / 1000)

/** RFC 7591 §3.2.1: the metadata as registered, with the client's id. */
const body = ({ client, grantTypes }: Registered) => ({
  client_id: client.id,
  client_id_issued_at: seconds(client.createdAt),
  client_name: client.name,
  redirect_uris: client.redirectUris,
  token_endpoint_auth_method: "none",
  grant_types: grantTypes,
  response_types: ["code"]
})

/** The body of POST /register as JSON; a body that is not JSON at all is refused at once. */
export const json = (request: HttpRequest): Either.Either<unknown, OAuthError> =>
  Either.mapLeft(
    JsonBody.parse(request.body),
    (problem) => new OAuthError({ code: "invalid_request", description: problem })
  )

/**
 * POST /register (RFC 7591). A JSON body with wrong metadata still counts against the
 * registration limit (Register.ts), so the metadata is checked there, not by the route.
 */
export const handle = (json: unknown, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    const config = yield* OAuthHttpConfig
    const registered = yield* register(decode(json), request.clientIp, config.registerLimit)
    return answer(body(registered), 201)
  })
