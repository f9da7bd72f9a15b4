import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import { ClientId } from "../../domain/Ids.js"
import { Client } from "../../domain/oauth/Client.js"
import * as RedirectUri from "../../domain/oauth/RedirectUri.js"
import { type Limit, RateLimiter } from "../ports/RateLimiter.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import { OAuthError } from "./OAuthError.js"
import * as OAuthMetrics from "./OAuthMetrics.js"
import { ClientRepository } from "./ports/ClientRepository.js"

/**
 * What a public client asks to be registered with (RFC 7591 §2), decoded from the wire by
 * the HTTP adapter; the metadata we do not use is checked there and dropped.
 */
export interface RegistrationRequest {
  readonly redirectUris: ReadonlyArray<string>
  readonly grantTypes: Option.Option<ReadonlyArray<GrantType>>
  readonly clientName: Option.Option<string>
}

export type GrantType = "authorization_code" | "refresh_token"

/**
 * What every public client may use at /token: a public client receives a refresh token with its
 * code's exchange whatever it asked, so the registration response names both grants (RFC 7591
 * §3.2.1 lets the server replace a requested value). Echoing `["authorization_code"]` would tell
 * the client that no refresh token comes, and one would.
 */
const granted: ReadonlyArray<GrantType> = ["authorization_code", "refresh_token"]

/** The registered client and what the registration response tells it (RFC 7591 §3.2.1). */
export interface Registered {
  readonly client: Client
  readonly grantTypes: ReadonlyArray<GrantType>
}

const metadataError = (code: "invalid_client_metadata" | "invalid_redirect_uri", description: string) =>
  new OAuthError({ code, description })

/**
 * POST /register (RFC 7591): public clients only, rate-limited per source address. The limit
 * is consumed before the request is looked at, so malformed registrations count against it
 * too: `request` is what the adapter decoded, or why it could not.
 */
export const register = Telemetry.fn("Register.register")(
  (request: Either.Either<RegistrationRequest, OAuthError>, source: string, limit: Limit) =>
    Effect.gen(function* () {
      const now = new Date(yield* Clock.currentTimeMillis)
      const verdict = yield* Effect.flatMap(RateLimiter, (limiter) =>
        limiter.consume(`register:${source}`, limit, now)
      )
      if (!verdict.allowed) {
        yield* Metric.increment(OAuthMetrics.rateLimitRefusals)
        return yield* new OAuthError({
          code: "slow_down",
          description: "too many registrations from this address",
          retryAfterSeconds: Math.max(1, Math.ceil(Duration.toSeconds(verdict.retryAfter)))
        })
      }
      const metadata = yield* request
      if (metadata.redirectUris.length === 0) {
        return yield* metadataError("invalid_redirect_uri", "redirect_uris must not be empty")
      }
      const redirectUris = RedirectUri.validateAll(metadata.redirectUris)
      if (Either.isLeft(redirectUris)) {
        return yield* metadataError("invalid_redirect_uri", redirectUris.left.message)
      }
      const requested = Option.getOrElse(metadata.grantTypes, (): ReadonlyArray<GrantType> => granted)
      if (!requested.includes("authorization_code")) {
        return yield* metadataError("invalid_client_metadata", "grant_types must include authorization_code")
      }
      const secrets = yield* Secrets
      // Every field is checked above or by construction (ClientId.make validates the id), so the
      // class does not validate them again: that was a tenth of a registration's CPU.
      const client = new Client(
        {
          id: ClientId.make(yield* secrets.uuid),
          name: Option.getOrElse(metadata.clientName, () => ""),
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
      yield* Metric.increment(OAuthMetrics.registrations)
      return { client, grantTypes: granted } satisfies Registered
    })
)
