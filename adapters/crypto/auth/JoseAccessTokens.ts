import { createHash } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as jose from "jose"
import { JwtSettings, lifetimesOf } from "../../../application/auth/JwtSettings.js"
import { AccessTokens, type Verified } from "../../../application/auth/ports/AccessTokens.js"
import { SigningKeyStore } from "../../../application/auth/ports/SigningKeyStore.js"
import * as AccessTokenClaims from "../../../domain/auth/AccessTokenClaims.js"
import * as BadJwt from "../../../domain/auth/BadJwt.js"
import * as KeyRing from "../../../domain/auth/KeyRing.js"
import * as SigningKey from "../../../domain/auth/SigningKey.js"
import * as JwsSignature from "./JwsSignature.js"

type Key = Awaited<ReturnType<typeof jose.importJWK>>

/**
 * The members jose reads. `key_ops`, `use` and `ext` stay out: WebCrypto refuses a private key
 * whose `key_ops` names `verify`, as configured keys often do (`["sign", "verify"]`).
 */
const keyMembers = ["kty", "crv", "x", "y", "n", "e", "d", "p", "q", "dp", "dq", "qi", "k"] as const

const toJose = (jwk: SigningKey.Jwk): jose.JWK => {
  const out: jose.JWK = {}
  for (const member of keyMembers) {
    const value = jwk[member]
    if (typeof value === "string") out[member] = value
  }
  return out
}

/**
 * An unknown `kid` may name a key another instance added since this one last read the store:
 * the store is read again, but at most this often, so that made-up kids cannot turn every
 * request into a query.
 */
const unknownKidRereadAfter = Duration.seconds(1)

const isAlgorithm = Schema.is(SigningKey.Algorithm)

/**
 * Checked tokens kept (JoseAccessTokens.layer): some 2 KiB each with their claims, so a few MiB
 * at most, for the tokens of the users active in the last moments.
 */
const checkedTokensHeld = 2_048

const decoder = new TextDecoder("utf-8", { fatal: true })
const encoder = new TextEncoder()

/** A compact JWS part: the text's UTF-8 bytes in base64url. */
const base64url = (text: string) => Buffer.from(text).toString("base64url")

/** One base64url part of a compact JWS as a JSON object, or which of the two steps failed. */
const jsonPart = (part: string): Either.Either<Record<string, unknown>, "base64" | "json"> => {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) return Either.left("base64")
  let text: string
  try {
    text = decoder.decode(jose.base64url.decode(part))
  } catch {
    return Either.left("base64")
  }
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? Either.right(Object.fromEntries(Object.entries(value)))
      : Either.left("json")
  } catch {
    return Either.left("json")
  }
}

/**
 * Access tokens with jose. The key ring (configured keys and the stored ones that verify now) is
 * read from the store at most every `keyCacheLifetime` and shared by every request meanwhile;
 * each key is imported by jose once, when first used, and kept while it stays in the ring.
 * node:crypto signs with the same keys and checks signatures, synchronously (JwsSignature.ts
 * says why). Configured keys are imported when the layer is built, so a key jose cannot use
 * stops the service at start rather than at its first request.
 */
export const layer = Layer.effect(
  AccessTokens,
  Effect.gen(function* () {
    const settings = yield* JwtSettings
    const store = yield* SigningKeyStore
    const lifetimes = lifetimesOf(settings)
    const cacheMillis = Duration.toMillis(settings.keyCacheLifetime)
    const configured = yield* KeyRing.fromConfiguration(settings.keys)
    const secret = Option.map(settings.secret, (value) => encoder.encode(Redacted.value(value)))

    /** Imported keys by use and kid; a promise, so that concurrent first uses share one import. */
    const imported = new Map<string, Promise<Key>>()
    /**
     * Each imported key's node:crypto form, which verifies without leaving the event loop and
     * signs with less of its time than WebCrypto (JwsSignature.ts).
     */
    const nodeKeys = new WeakMap<Key, JwsSignature.NodeKey>()
    const nodeKey = (key: Key) => {
      let found = nodeKeys.get(key)
      if (found === undefined) {
        found = JwsSignature.nodeKeyOf(key)
        nodeKeys.set(key, found)
      }
      return found
    }

    const importNow = (entry: KeyRing.Entry, use: "sign" | "verify"): Promise<Key> => {
      const jwk = Redacted.value(entry.jwk)
      const material =
        use === "sign" || entry.algorithm === "HS256"
          ? jwk
          : Option.getOrElse(SigningKey.publicJwk(jwk, entry.kid, entry.algorithm), () => jwk)
      return jose.importJWK(toJose(material), entry.algorithm)
    }

    const keyOf = (entry: KeyRing.Entry, use: "sign" | "verify") =>
      Effect.suspend(() => {
        const id = `${use}:${entry.kid}`
        let promise = imported.get(id)
        if (promise === undefined) {
          promise = importNow(entry, use)
          imported.set(id, promise)
        }
        const held = promise
        return Effect.tryPromise(() => held).pipe(
          Effect.tapError(() => Effect.sync(() => imported.delete(id))),
          // A stored key that does not import is storage that broke; configured ones were
          // imported when the layer was built.
          Effect.orDieWith(
            (error) => new Error(`signing key ${entry.kid} does not import: ${String(error.error)}`)
          )
        )
      })

    yield* Effect.forEach(configured, (key) =>
      Effect.tryPromise({
        try: () => Promise.all([importNow(key, "verify"), ...(key.signs ? [importNow(key, "sign")] : [])]),
        catch: (error) =>
          new KeyRing.InvalidConfiguredKey({
            index: configured.indexOf(key),
            message: `key ${key.kid}: ${error instanceof Error ? error.message : String(error)}`
          })
      })
    )

    let held: { readonly ring: KeyRing.KeyRing; readonly readAt: number } | undefined
    const reading = yield* Effect.makeSemaphore(1)

    /** The ring, read again unless another request did so within `maxAgeMillis`. */
    const reread = (maxAgeMillis: number) =>
      reading.withPermits(1)(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          if (held !== undefined && now - held.readAt < maxAgeMillis) return held.ring
          const ring = KeyRing.make(configured, yield* store.list, new Date(now), lifetimes)
          for (const id of imported.keys()) {
            if (!ring.verifying.has(id.slice(id.indexOf(":") + 1))) imported.delete(id)
          }
          held = { ring, readAt: now }
          return ring
        })
      )

    const ring = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      held !== undefined && now - held.readAt < cacheMillis ? Effect.succeed(held.ring) : reread(cacheMillis)
    )

    const verifierFor = (fields: Record<string, unknown>, now: Date) =>
      Effect.gen(function* () {
        const header = { alg: fields.alg, kid: fields.kid }
        const found = KeyRing.verifierFor(
          yield* ring,
          header,
          settings.validMethods,
          Option.isSome(secret),
          now
        )
        if (Either.isRight(found) || found.left.reason !== "unknown_key") return found
        const fresh = yield* reread(Duration.toMillis(unknownKidRereadAfter))
        return KeyRing.verifierFor(fresh, header, settings.validMethods, Option.isSome(secret), now)
      })

    /** A token's parts as read, and the key whose signature check it passed. */
    interface Checked {
      readonly header: Record<string, unknown>
      readonly payload: Record<string, unknown>
      readonly claims: AccessTokenClaims.VerifiedClaims
      readonly signedWith: JwsSignature.NodeKey
    }
    /**
     * Tokens whose signature passed, by their digest: a client presents one access token on
     * every request until it refreshes, and checking an RS256 signature and decoding the claims
     * again each time was a fifth of `GET /user`'s CPU. Only the signature check and the
     * decoding are skipped: the key must still be in the ring and be the one that checked it
     * (a retired key's tokens fail as before), and expiry is checked at every use. Oldest out
     * first beyond `checkedTokensHeld`.
     */
    const checkedTokens = new Map<string, Checked>()

    /** The token's header, payload and claims, read from its parts. */
    const parse = (headerPart: string, payloadPart: string) =>
      Effect.gen(function* () {
        const header = jsonPart(headerPart)
        if (Either.isLeft(header)) {
          return yield* BadJwt.malformed(
            `could not ${header.left === "base64" ? "base64" : "JSON"} decode header`
          )
        }
        const payload = jsonPart(payloadPart)
        if (Either.isLeft(payload)) {
          return yield* BadJwt.malformed(
            `could not ${payload.left === "base64" ? "base64" : "JSON"} decode claim`
          )
        }
        const claims = AccessTokenClaims.decodeVerified(payload.right)
        if (Either.isLeft(claims)) return yield* BadJwt.malformed("could not JSON decode claim")
        return { header: header.right, payload: payload.right, claims: claims.right }
      })

    const verify = (token: string): Effect.Effect<Verified, BadJwt.BadJwt> =>
      Effect.gen(function* () {
        const parts = token.split(".")
        const [headerPart, payloadPart, signaturePart] = parts
        if (
          parts.length !== 3 ||
          headerPart === undefined ||
          payloadPart === undefined ||
          signaturePart === undefined
        ) {
          return yield* BadJwt.malformed("token contains an invalid number of segments")
        }
        const digest = createHash("sha256").update(token).digest("base64")
        const checked = checkedTokens.get(digest)
        const { header, payload, claims } = checked ?? (yield* parse(headerPart, payloadPart))
        const nowMillis = yield* Clock.currentTimeMillis
        const verifier = yield* Effect.flatten(verifierFor(header, new Date(nowMillis)))
        // verifierFor accepted the algorithm, so it is one of ours; this narrows its type.
        const alg = header.alg
        if (!isAlgorithm(alg)) return yield* BadJwt.algorithmUnavailable(alg)
        let key: Key
        if (verifier._tag === "Secret") {
          // verifierFor answers Secret only when there is one.
          key = Option.getOrElse(secret, () => new Uint8Array())
        } else if (verifier.entry.algorithm !== alg) {
          return yield* BadJwt.keyOfInvalidType()
        } else {
          key = yield* keyOf(verifier.entry, "verify")
        }
        const signedWith = nodeKey(key)
        if (checked?.signedWith !== signedWith) {
          const signed = JwsSignature.verifies(
            alg,
            token.slice(0, headerPart.length + 1 + payloadPart.length),
            signaturePart,
            signedWith
          )
          if (signed === undefined) return yield* BadJwt.malformed("could not base64 decode signature")
          if (!signed) return yield* BadJwt.badSignature(alg)
          if (checked === undefined && checkedTokens.size >= checkedTokensHeld) {
            const oldest = checkedTokens.keys().next()
            if (oldest.done !== true) checkedTokens.delete(oldest.value)
          }
          checkedTokens.set(digest, { header, payload, claims, signedWith })
        }
        const verified = claims
        if (verified.exp !== undefined && nowMillis >= verified.exp * 1000) {
          return yield* BadJwt.expired(nowMillis - verified.exp * 1000)
        }
        if (verified.nbf !== undefined && nowMillis < verified.nbf * 1000) return yield* BadJwt.notYetValid()
        const kid = header.kid
        return {
          alg: verifier._tag === "Secret" ? "HS256" : verifier.entry.algorithm,
          kid: typeof kid === "string" ? Option.some(kid) : Option.none(),
          claims: verified,
          payload
        } satisfies Verified
      })

    return {
      sign: (claims) =>
        Effect.gen(function* () {
          const signing = (yield* ring).signing
          if (Option.isNone(signing)) {
            return yield* Effect.dieMessage("no signing key: EnsureSigningKey runs before the service serves")
          }
          const entry = signing.value
          const key = yield* keyOf(entry, "sign")
          const header = base64url(JSON.stringify({ alg: entry.algorithm, kid: entry.kid, typ: "JWT" }))
          const payload = base64url(JSON.stringify(AccessTokenClaims.encode(claims)))
          const signingInput = `${header}.${payload}`
          const signature = yield* Effect.promise(() =>
            JwsSignature.signature(entry.algorithm, signingInput, nodeKey(key))
          )
          return Redacted.make(`${signingInput}.${signature}`)
        }),
      verify,
      jwks: Effect.gen(function* () {
        const current = yield* ring
        return { keys: KeyRing.publishedAt(current, new Date(yield* Clock.currentTimeMillis)) }
      }),
      generateKey: (algorithm) =>
        Effect.promise(async () => {
          const pair = await jose.generateKeyPair(algorithm, { extractable: true })
          return Object.fromEntries(Object.entries(await jose.exportJWK(pair.privateKey)))
        })
    }
  })
)
