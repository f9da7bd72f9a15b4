import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as KeyRing from "../../domain/auth/KeyRing.js"
import * as SigningKey from "../../domain/auth/SigningKey.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import { JwtSettings } from "./JwtSettings.js"
import { AccessTokens } from "./ports/AccessTokens.js"
import { SigningKeyStore } from "./ports/SigningKeyStore.js"

/** Which key signs once the service has started. */
export type Outcome =
  /** A key of `AUTHSVC_JWT_KEYS` signs; no stored key is needed. */
  | { readonly _tag: "Configured"; readonly kid: SigningKey.Kid }
  /** A stored key was current already (or another instance starting at once stored it). */
  | { readonly _tag: "Existing"; readonly kid: SigningKey.Kid }
  /** This start stored the first key. */
  | { readonly _tag: "Created"; readonly kid: SigningKey.Kid }

/**
 * Gives the service a signing key on its first start: an RS256 key, current at once, when no
 * configured key signs and the store holds no current key. Safe when instances start together:
 * each may generate a key, the store keeps exactly one, and the others report it as existing.
 * Fails at once when `AUTHSVC_JWT_KEYS` cannot be used, which is a start-up failure.
 */
export const ensureSigningKey = Telemetry.fn("EnsureSigningKey.ensureSigningKey")(() =>
  Effect.gen(function* () {
    const settings = yield* JwtSettings
    const configured = yield* KeyRing.fromConfiguration(settings.keys)
    const signer = configured.find((key) => key.signs)
    if (signer !== undefined) return { _tag: "Configured", kid: signer.kid } satisfies Outcome
    const store = yield* SigningKeyStore
    const existing = SigningKey.current(yield* store.list)
    if (Option.isSome(existing)) return { _tag: "Existing", kid: existing.value.kid } satisfies Outcome
    const tokens = yield* AccessTokens
    const secrets = yield* Secrets
    const privateJwk = yield* tokens.generateKey(SigningKey.defaultAlgorithm)
    const kid = SigningKey.Kid.make(yield* secrets.uuid)
    const now = new Date(yield* Clock.currentTimeMillis)
    if (
      yield* store.insert(SigningKey.first({ kid, algorithm: SigningKey.defaultAlgorithm, privateJwk }, now))
    ) {
      return { _tag: "Created", kid } satisfies Outcome
    }
    // Another instance stored its first key between our read and our write.
    const winner = SigningKey.current(yield* store.list)
    if (Option.isNone(winner))
      return yield* Effect.dieMessage("the store refused a first key but holds no current key")
    return { _tag: "Existing", kid: winner.value.kid } satisfies Outcome
  }).pipe(Effect.tap((outcome) => Effect.logInfo("signing key").pipe(Effect.annotateLogs(outcome))))
)()
