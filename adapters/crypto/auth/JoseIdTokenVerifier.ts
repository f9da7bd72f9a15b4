import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as jose from "jose"
import {
  type Expected,
  IdTokenRefused,
  IdTokenVerifier
} from "../../../application/auth/ports/IdTokenVerifier.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as BoundedCache from "../../BoundedCache.js"
import * as GuardedFetch from "../../outbound/GuardedFetch.js"
import type * as PrivateAddresses from "../../outbound/PrivateAddresses.js"

export interface Settings {
  /** The private addresses the operator allows (a provider inside the network). */
  readonly allowedPrivateAddresses?: PrivateAddresses.AllowList | undefined
}

const Discovery = Schema.Struct({ issuer: Schema.String, jwks_uri: Schema.String })

/** Issuers whose key sets are kept at once. */
const maxKeySets = 256

/**
 * ID tokens checked with jose against the keys the issuer publishes: its discovery document
 * names them, both fetched through the outbound guard, and jose keeps each key set (refetched
 * when a token names a key it has not seen). Issuer, expiry and signature are checked here; the
 * audience and the nonce by the use case.
 */
export const layer = (settings: Settings = {}) =>
  Layer.sync(IdTokenVerifier, () => {
    const guarded = GuardedFetch.makeFetch({
      timeout: "10 seconds",
      maxBytes: 256 * 1024,
      ...(settings.allowedPrivateAddresses === undefined
        ? {}
        : { allowedPrivateAddresses: settings.allowedPrivateAddresses })
    })
    // By issuer. Azure's issuer is read from the token (one per tenant), so how many there are is
    // the callers' choice: the least recently used key set goes past a ceiling.
    const keySets = BoundedCache.make<string, ReturnType<typeof jose.createRemoteJWKSet>>({
      maxEntries: maxKeySets
    })

    const keysOf = (issuer: string) =>
      Effect.gen(function* () {
        const known = keySets.get(issuer)
        if (known !== undefined) return known
        const document = yield* Effect.tryPromise({
          try: async () => {
            const response = await guarded(`${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`)
            if (!response.ok) throw new Error(`HTTP ${response.status}`)
            return response.json()
          },
          catch: () => new IdTokenRefused({ message: "Unable to read the provider's OpenID configuration" })
        }).pipe(
          Effect.flatMap((body) =>
            Effect.mapError(
              Schema.decodeUnknown(Discovery)(body),
              () => new IdTokenRefused({ message: "The provider's OpenID configuration is not valid" })
            )
          )
        )
        const keys = jose.createRemoteJWKSet(new URL(document.jwks_uri), { [jose.customFetch]: guarded })
        keySets.set(issuer, keys)
        return keys
      })

    return {
      verify: Telemetry.fn("JoseIdTokenVerifier.verify")(
        (token: string, expected: Expected) =>
          Effect.gen(function* () {
            const keys = yield* keysOf(expected.issuer)
            const { payload } = yield* Effect.tryPromise({
              try: () => jose.jwtVerify(token, keys, { issuer: expected.issuer, currentDate: expected.now }),
              catch: (cause) =>
                new IdTokenRefused({
                  message:
                    cause instanceof jose.errors.JOSEError
                      ? idTokenMessage(cause)
                      : "ID token could not be verified"
                })
            })
            return payload
          }),
        (_: string, expected: Expected) => ({ "idtoken.issuer": expected.issuer })
      ),
      issuerOf: (token: string) => {
        try {
          const issuer = jose.decodeJwt(token).iss
          return typeof issuer === "string" && issuer !== "" ? Option.some(issuer) : Option.none()
        } catch {
          return Option.none()
        }
      }
    }
  })

/** Supabase Auth's words for the usual refusals, the library's otherwise (never the token). */
const idTokenMessage = (error: jose.errors.JOSEError): string => {
  if (error instanceof jose.errors.JWTExpired) return "ID token has expired"
  if (error instanceof jose.errors.JWTClaimValidationFailed)
    return `ID token ${error.claim} claim is not valid`
  if (error instanceof jose.errors.JWSSignatureVerificationFailed) return "ID token signature is not valid"
  return "ID token could not be verified"
}
