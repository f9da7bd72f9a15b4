import { Clock, Duration, Effect, Either, Option, ParseResult, Schema } from "effect"
import { ClientId } from "../../domain/Ids.js"
import { Client } from "../../domain/oauth/Client.js"
import * as RedirectUri from "../../domain/oauth/RedirectUri.js"
import { type Limit, RateLimiter } from "../ports/RateLimiter.js"
import { TokenMint } from "../ports/TokenMint.js"
import * as Tracing from "../Tracing.js"
import { OAuthError } from "./OAuthError.js"
import { ClientRepository } from "./ports/ClientRepository.js"

/** RFC 7591 §2 client metadata that a public client may register. */
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

/** The registered client and what the registration response tells it (RFC 7591 §3.2.1). */
export interface Registered {
  readonly client: Client
  readonly grantTypes: ReadonlyArray<"authorization_code" | "refresh_token">
}

const metadataError = (code: "invalid_client_metadata" | "invalid_redirect_uri", description: string) =>
  new OAuthError({ code, description })

const decodeMetadataEither = Schema.decodeUnknownEither(Metadata, { onExcessProperty: "ignore" })

const decodeMetadata = (body: unknown) =>
  decodeMetadataEither(body).pipe(
    Either.mapLeft((error) => {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
      const field = issue?.path[0]
      if (typeof body === "object" && body !== null && !("redirect_uris" in body)) {
        return metadataError("invalid_redirect_uri", "redirect_uris is required")
      }
      if (field === "redirect_uris")
        return metadataError("invalid_redirect_uri", "redirect_uris must be an array of URIs")
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
    })
  )

/** POST /register (RFC 7591): public clients only, rate-limited per source address. */
export const register = (body: unknown, source: string, limit: Limit) =>
  Effect.gen(function* () {
    const now = new Date(yield* Clock.currentTimeMillis)
    const verdict = yield* Effect.flatMap(RateLimiter, (limiter) =>
      limiter.consume(`register:${source}`, limit, now)
    )
    if (!verdict.allowed) {
      return yield* new OAuthError({
        code: "slow_down",
        description: "too many registrations from this address",
        retryAfterSeconds: Math.max(1, Math.ceil(Duration.toSeconds(verdict.retryAfter)))
      })
    }
    const metadata = yield* decodeMetadata(body)
    if (metadata.redirect_uris.length === 0) {
      return yield* metadataError("invalid_redirect_uri", "redirect_uris must not be empty")
    }
    const redirectUris = RedirectUri.validateAll(metadata.redirect_uris)
    if (Either.isLeft(redirectUris)) {
      return yield* metadataError("invalid_redirect_uri", redirectUris.left.message)
    }
    const grantTypes = metadata.grant_types ?? ["authorization_code", "refresh_token"]
    if (!grantTypes.includes("authorization_code")) {
      return yield* metadataError("invalid_client_metadata", "grant_types must include authorization_code")
    }
    const mint = yield* TokenMint
    // Every field is checked above or by construction (ClientId.make validates the id), so the
    // class does not validate them again: that was a tenth of a registration's CPU.
    const client = new Client(
      {
        id: ClientId.make(yield* mint.uuid),
        name: metadata.client_name ?? "",
        type: "public",
        origin: "dynamic",
        redirectUris: redirectUris.right,
        secretHash: Option.none(),
        createdAt: now,
        lastUsedAt: Option.none()
      },
      true
    )
    yield* Effect.flatMap(ClientRepository, (clients) => clients.insert(client)).pipe(
      Effect.catchTag("ClientAlreadyExists", () => Effect.dieMessage("random client id collided"))
    )
    return { client, grantTypes } satisfies Registered
  }).pipe(Tracing.span("Register.register", { captureStackTrace: false }))
