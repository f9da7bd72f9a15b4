import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as KeyRing from "../../../domain/auth/KeyRing.js"
import * as SigningKey from "../../../domain/auth/SigningKey.js"
import * as Telemetry from "../../Telemetry.js"
import { JwtSettings, lifetimesOf } from "../JwtSettings.js"
import { SigningKeyStore } from "../ports/SigningKeyStore.js"

/** One line of `keys list`. */
export interface KeyListing {
  readonly kid: SigningKey.Kid
  readonly algorithm: SigningKey.Algorithm
  readonly source: KeyRing.Source
  /** A stored key's phase now; `configured` for a key of `AUTHSVC_JWT_KEYS`. */
  readonly phase: SigningKey.Phase | "configured"
  /** Whether it signs new tokens: a configured signing key wins over the stored current one. */
  readonly signs: boolean
  /** Whether the JWKS shows it (HS256 keys never). */
  readonly published: boolean
  readonly createdAt: Option.Option<Date>
  readonly activatedAt: Option.Option<Date>
  /** For a previous key: until when tokens it signed still verify. */
  readonly verifiesUntil: Option.Option<Date>
  readonly retiredAt: Option.Option<Date>
}

/** `keys list`: the configured keys, then every stored key, retired ones included, oldest first. */
export const listKeys = Telemetry.fn("ListKeys.listKeys")(() =>
  Effect.gen(function* () {
    const settings = yield* JwtSettings
    const store = yield* SigningKeyStore
    const now = new Date(yield* Clock.currentTimeMillis)
    const lifetimes = lifetimesOf(settings)
    const configured = yield* KeyRing.fromConfiguration(settings.keys)
    const stored = yield* store.list
    const ring = KeyRing.make(configured, stored, now, lifetimes)
    const signer = Option.map(ring.signing, (entry) => entry.kid)
    const publishedKids = new Set(KeyRing.publishedAt(ring, now).map((jwk) => jwk.kid))
    const configuredKids = new Set(configured.map((key) => key.kid))
    const fromConfiguration = configured.map(
      (key): KeyListing => ({
        kid: key.kid,
        algorithm: key.algorithm,
        source: "configuration",
        phase: "configured",
        signs: Option.contains(signer, key.kid),
        published: publishedKids.has(key.kid),
        createdAt: Option.none(),
        activatedAt: Option.none(),
        verifiesUntil: Option.none(),
        retiredAt: Option.none()
      })
    )
    // A stored key shadowed by a configured one of the same kid is listed, but neither signs
    // nor is published as itself.
    const fromStore = stored.map(
      (key): KeyListing => ({
        kid: key.kid,
        algorithm: key.algorithm,
        source: "store",
        phase: SigningKey.phase(key, now, lifetimes),
        signs: !configuredKids.has(key.kid) && Option.contains(signer, key.kid),
        published: !configuredKids.has(key.kid) && publishedKids.has(key.kid),
        createdAt: Option.some(key.createdAt),
        activatedAt: key.activatedAt,
        verifiesUntil: SigningKey.verifiesUntil(key, lifetimes),
        retiredAt: key.retiredAt
      })
    )
    return [...fromConfiguration, ...fromStore]
  })
)()
