import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { compactVerify, createLocalJWKSet, errors } from "jose"
import {
  AssertionSignatureRefused,
  ClientKeys,
  ClientKeysUnavailable
} from "../../../application/oauth/ports/ClientKeys.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as ClientAssertion from "../../../domain/oauth/ClientAssertion.js"
import * as BoundedCache from "../../BoundedCache.js"
import * as PublishedJson from "./PublishedJson.js"

/**
 * The key sets `private_key_jwt` clients publish at their `jwks_uri`, fetched like their
 * metadata documents (`PublishedJson`: through the outbound guard), kept for their time to
 * live, and the check of an assertion's signature against them (jose).
 */

/** The public members of a JWK that verification uses; any other member is ignored. */
const PublicJwk = Schema.Struct({
  kty: Schema.String,
  kid: Schema.optionalWith(Schema.String, { exact: true }),
  alg: Schema.optionalWith(Schema.String, { exact: true }),
  use: Schema.optionalWith(Schema.String, { exact: true }),
  key_ops: Schema.optionalWith(Schema.Array(Schema.String).pipe(Schema.mutable), { exact: true }),
  crv: Schema.optionalWith(Schema.String, { exact: true }),
  n: Schema.optionalWith(Schema.String, { exact: true }),
  e: Schema.optionalWith(Schema.String, { exact: true }),
  x: Schema.optionalWith(Schema.String, { exact: true }),
  y: Schema.optionalWith(Schema.String, { exact: true })
})

const decodeJwk = Schema.decodeUnknownOption(PublicJwk, { onExcessProperty: "ignore" })

/** The set's entries, each read on its own: one that is no key is passed over, not the set. */
const KeySetJson = Schema.Struct({ keys: Schema.Array(Schema.Unknown) })

/** Private (`d`) or symmetric (`k`, `oct`) key material, which a published set never holds. */
const isSecret = (entry: unknown): boolean =>
  typeof entry === "object" &&
  entry !== null &&
  ("d" in entry || "k" in entry || ("kty" in entry && entry.kty === "oct"))

/** A key set ready to verify with: jose keeps each key imported after its first use. */
export interface KeySet {
  readonly getKey: ReturnType<typeof createLocalJWKSet>
}

/** As many key sets as the document cache holds documents: one per signing client. */
const maxKeySets = 1000
/** Key sets are a few kilobytes at most; this bounds the cache whatever publishers send. */
const maxBytes = 4 * 1024 * 1024

/**
 * An assertion naming a key the cached set lacks makes us fetch the set again (the client
 * rotated its keys), but not more often than this per set: a stream of assertions with made-up
 * key ids would otherwise turn into a stream of fetches.
 */
export const refetchCooldown = Duration.seconds(30)

interface Cached {
  readonly set: KeySet
  /** Epoch milliseconds. */
  readonly fetchedAt: number
  readonly freshUntil: number
  readonly bytes: number
}

const unavailable = (reason: string, answer: ClientKeysUnavailable["answer"]) =>
  new ClientKeysUnavailable({ reason, answer })

/**
 * A set's public keys. A set that publishes private or symmetric key material is refused whole
 * (its publisher has leaked or misplaced a secret, and OpenID Connect's registration asks servers
 * to refuse it); an entry that is no JWK (no `kty`, members of the wrong type) is passed over, as
 * RFC 7517 §5 asks, and so are keys jose cannot use when it picks one.
 */
export const parseKeySet = (json: unknown): Either.Either<KeySet, ClientKeysUnavailable> =>
  Either.flatMap(
    Schema.decodeUnknownEither(KeySetJson, { onExcessProperty: "ignore" })(json).pipe(
      Either.mapLeft(() => unavailable("not a JWK Set: an object with a keys array", "refused"))
    ),
    (set) =>
      set.keys.some(isSecret)
        ? Either.left(unavailable("the key set publishes a private or symmetric key", "refused"))
        : Either.try({
            try: () => ({
              getKey: createLocalJWKSet({
                keys: set.keys.flatMap((entry) => Option.toArray(decodeJwk(entry)))
              })
            }),
            catch: () => unavailable("not a JWK Set", "refused")
          })
  )

export type Checked = Either.Either<unknown, { readonly reason: string; readonly unknownKey: boolean }>

const refusal = (reason: string, unknownKey = false) => Either.left({ reason, unknownKey })

/** The signature checked under the set's keys; the payload parsed when it holds. */
export const check = (assertion: Redacted.Redacted<string>, set: KeySet): Effect.Effect<Checked> =>
  Effect.promise(async (): Promise<Checked> => {
    try {
      const verified = await compactVerify(Redacted.value(assertion), set.getKey, {
        algorithms: [...ClientAssertion.signingAlgorithms]
      })
      return Either.right(JSON.parse(new TextDecoder().decode(verified.payload)))
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey)
        return refusal("no key of the client's key set matches it", true)
      if (error instanceof errors.JOSEAlgNotAllowed) {
        return refusal(`its alg is not accepted; accepted: ${ClientAssertion.signingAlgorithms.join(", ")}`)
      }
      if (error instanceof errors.JWSSignatureVerificationFailed)
        return refusal("its signature does not verify")
      if (error instanceof errors.JWKSMultipleMatchingKeys) {
        return refusal("several keys of the client's key set match it and none verifies it")
      }
      if (error instanceof SyntaxError) return refusal("its payload is not JSON")
      return refusal("it is not a compact JWS")
    }
  })

/** The verifier with its own cache of key sets; `options` as for the metadata documents. */
export const make = (options: PublishedJson.Options = {}) =>
  Effect.sync(() => {
    const cache = BoundedCache.make<string, Cached>({
      maxEntries: maxKeySets,
      maxWeight: maxBytes,
      weigh: (cached) => cached.bytes
    })

    const fetchSet = (url: URL) =>
      Effect.gen(function* () {
        const fetched = yield* PublishedJson.fetchJson(url, options, "key set").pipe(
          Effect.mapError((failure) =>
            unavailable(failure.reason, failure.answer === "down" ? "down" : "refused")
          )
        )
        const set = yield* parseKeySet(fetched.json)
        const now = yield* Clock.currentTimeMillis
        const cached: Cached = {
          set,
          fetchedAt: now,
          freshUntil: now + Duration.toMillis(fetched.timeToLive),
          bytes: fetched.bytes
        }
        cache.set(url.href, cached)
        return cached
      })

    /**
     * The fresh set, fetched when there is none; while its publisher is down, the copy fetched
     * last serves (as the client's stored row does for its document), so that an outage at the
     * client's host does not sign its users out.
     */
    const current = (url: URL) =>
      Effect.gen(function* () {
        const cached = cache.get(url.href)
        const now = yield* Clock.currentTimeMillis
        if (cached !== undefined && now < cached.freshUntil) return cached
        return yield* fetchSet(url).pipe(
          Effect.catchTag("ClientKeysUnavailable", (failure) =>
            cached !== undefined && failure.answer === "down"
              ? Effect.as(
                  Effect.logWarning(
                    "client key set unreachable; the copy fetched last serves",
                    failure.reason
                  ),
                  cached
                )
              : Effect.fail(failure)
          )
        )
      })

    return ClientKeys.of({
      verify: Telemetry.fn("ClientKeysHttp.verify")((assertion: Redacted.Redacted<string>, raw: string) =>
        Effect.gen(function* () {
          // Validated when the document was read; a row altered since is refused, not thrown on.
          const jwksUri = URL.canParse(raw) ? new URL(raw) : undefined
          if (jwksUri?.protocol !== "https:")
            return yield* unavailable("jwks_uri is not an https URL", "refused")
          const cached = yield* current(jwksUri)
          let checked = yield* check(assertion, cached.set)
          const now = yield* Clock.currentTimeMillis
          if (
            Either.isLeft(checked) &&
            checked.left.unknownKey &&
            now - cached.fetchedAt >= Duration.toMillis(refetchCooldown)
          ) {
            checked = yield* check(assertion, (yield* fetchSet(jwksUri)).set)
          }
          if (Either.isLeft(checked))
            return yield* new AssertionSignatureRefused({ reason: checked.left.reason })
          return checked.right
        })
      )
    })
  })

export const layer = (options: PublishedJson.Options = {}) => Layer.effect(ClientKeys, make(options))
