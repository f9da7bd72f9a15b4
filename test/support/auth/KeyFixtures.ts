import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as NodeSecrets from "../../../adapters/crypto/NodeSecrets.js"
import * as SigningKeyStoreMemory from "../../../adapters/memory/auth/SigningKeyStoreMemory.js"
import { JwtSettings } from "../../../application/auth/JwtSettings.js"
import { AccessTokens } from "../../../application/auth/ports/AccessTokens.js"
import * as SigningKey from "../../../domain/auth/SigningKey.js"

export type Settings = typeof JwtSettings.Service

export const settings = (overrides: Partial<Settings> = {}): Settings => ({
  issuer: "http://localhost:8081/auth/v1",
  lifetime: Duration.hours(1),
  validMethods: SigningKey.defaultValidMethods,
  secret: Option.none(),
  keys: [],
  keyCacheLifetime: Duration.seconds(30),
  ...overrides
})

export const settingsLayer = (overrides: Partial<Settings> = {}) =>
  Layer.succeed(JwtSettings, settings(overrides))

let generated = 0

/**
 * Access tokens that only generate (placeholder) key material: for storage and use-case tests,
 * where no token is signed. Anything else dies, so a test that signs by mistake says so.
 */
export const generatingOnly = Layer.succeed(AccessTokens, {
  sign: () => Effect.dieMessage("this test signs no token"),
  verify: () => Effect.dieMessage("this test verifies no token"),
  jwks: Effect.dieMessage("this test publishes no key"),
  generateKey: (algorithm) =>
    // Yields as real key generation does, so that instances starting together interleave.
    Effect.zipRight(
      Effect.yieldNow(),
      Effect.sync(() => {
        generated += 1
        return {
          kty: algorithm === "RS256" ? "RSA" : algorithm === "ES256" ? "EC" : "OKP",
          d: `d-${generated}`
        }
      })
    )
})

/** The key commands' services on the memory key store, keys generated only, with `overrides`. */
export const memoryKeys = (overrides: Partial<Settings> = {}) =>
  Layer.mergeAll(SigningKeyStoreMemory.layer, settingsLayer(overrides), generatingOnly, NodeSecrets.layer)
