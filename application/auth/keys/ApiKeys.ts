import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as ApiKey from "../../../domain/auth/ApiKey.js"
import * as Telemetry from "../../Telemetry.js"
import { AuthSettings } from "../AuthSettings.js"
import { JwtSettings } from "../JwtSettings.js"
import { ApiKeySigner } from "../ports/ApiKeySigner.js"

/**
 * Why no API keys can be made for this configuration: no `JWT_SECRET` to sign them with, or
 * `JWT_VALID_METHODS` without HS256, so that the service would refuse them.
 */
export class ApiKeysUnavailable extends Schema.TaggedError<ApiKeysUnavailable>()("ApiKeysUnavailable", {
  reason: Schema.Literal("no_secret", "hs256_not_accepted")
}) {}

export interface ApiKeys {
  readonly anon: Redacted.Redacted<string>
  readonly serviceRole: Redacted.Redacted<string>
  /** When they stop working. */
  readonly expiresAt: Date
  /** Whether `JWT_ADMIN_ROLES` names `service_role`: else that key cannot call the admin API. */
  readonly serviceRoleIsAdmin: boolean
}

/**
 * `keys api`: the anon and service_role keys for the configured secret, as `supabase status`
 * prints them. They are signed with `JWT_SECRET`, never with a signing key of the ring: the
 * service checks an HS256 token without a `kid` against the secret (KeyRing.verifierFor), which
 * no key rotation changes, while a key of the ring stops verifying once it is retired, and the
 * keys would stop with it. Any instance with the same secret accepts them; changing the secret
 * revokes them all.
 */
export const apiKeys = Telemetry.fn("ApiKeys.apiKeys")(() =>
  Effect.gen(function* () {
    const jwt = yield* JwtSettings
    const settings = yield* AuthSettings
    const signer = yield* ApiKeySigner
    if (Option.isNone(jwt.secret)) return yield* new ApiKeysUnavailable({ reason: "no_secret" })
    if (!jwt.validMethods.includes("HS256")) {
      return yield* new ApiKeysUnavailable({ reason: "hs256_not_accepted" })
    }
    const secret = jwt.secret.value
    const now = new Date(yield* Clock.currentTimeMillis)
    const anonClaims = ApiKey.claims("anon", now)
    return {
      anon: yield* signer.sign(anonClaims, secret),
      serviceRole: yield* signer.sign(ApiKey.claims("service_role", now), secret),
      expiresAt: new Date(anonClaims.exp * 1000),
      serviceRoleIsAdmin: settings.adminRoles.includes("service_role")
    } satisfies ApiKeys
  })
)()
