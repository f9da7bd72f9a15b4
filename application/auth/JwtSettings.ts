import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as SigningKey from "../../domain/auth/SigningKey.js"

/** The configuration of access tokens (names as the auth service's configuration writes them). */
export class JwtSettings extends Context.Tag("latchkey/auth/JwtSettings")<
  JwtSettings,
  {
    /** The `iss` of issued tokens. */
    readonly issuer: string
    /** `JWT_EXP`: how long an access token lives. */
    readonly lifetime: Duration.Duration
    /** `JWT_VALID_METHODS`: the algorithms a presented token may use (`SigningKey.defaultValidMethods`). */
    readonly validMethods: ReadonlyArray<SigningKey.Algorithm>
    /** `JWT_SECRET`: verifies HS256 tokens whose `kid` names no key; signs nothing. */
    readonly secret: Option.Option<Redacted.Redacted<string>>
    /** `AUTHSVC_JWT_KEYS`, parsed into JWK records; they win over stored keys (`KeyRing.make`). */
    readonly keys: ReadonlyArray<Record<string, unknown>>
    /**
     * How long an instance reuses the stored keys it read before reading them again: how late
     * it sees another instance's rotation or retirement. Not an environment variable.
     */
    readonly keyCacheLifetime: Duration.Duration
  }
>() {}

/** `keyCacheLifetime` unless told otherwise: short next to `JWT_EXP`, long next to a request. */
export const defaultKeyCacheLifetime = "30 seconds"

/** The lifetimes the key lifecycle is judged with. */
export const lifetimesOf = (settings: Context.Tag.Service<JwtSettings>): SigningKey.Lifetimes =>
  SigningKey.lifetimes(settings.lifetime, settings.keyCacheLifetime)
