import { webcrypto } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as jose from "jose"
import * as JoseAccessTokens from "../../../../adapters/crypto/auth/JoseAccessTokens.js"
import * as NodeSecrets from "../../../../adapters/crypto/NodeSecrets.js"
import * as SigningKeyStoreMemory from "../../../../adapters/memory/auth/SigningKeyStoreMemory.js"
import * as EnsureSigningKey from "../../../../application/auth/EnsureSigningKey.js"
import * as AddKey from "../../../../application/auth/keys/AddKey.js"
import * as RetireKey from "../../../../application/auth/keys/RetireKey.js"
import * as RotateKeys from "../../../../application/auth/keys/RotateKeys.js"
import { AccessTokens } from "../../../../application/auth/ports/AccessTokens.js"
import { SigningKeyStore } from "../../../../application/auth/ports/SigningKeyStore.js"
import * as AccessTokenClaims from "../../../../domain/auth/AccessTokenClaims.js"
import * as SigningKey from "../../../../domain/auth/SigningKey.js"
import { UserId } from "../../../../domain/Ids.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as KeyFixtures from "../../../support/auth/KeyFixtures.js"

const secret = "super-secret-jwt-token-with-at-least-32-characters-long"

const layerWith = (overrides: Partial<KeyFixtures.Settings> = {}) =>
  JoseAccessTokens.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(SigningKeyStoreMemory.layer, KeyFixtures.settingsLayer(overrides))),
    Layer.provideMerge(NodeSecrets.layer)
  )

const user = Fixtures.user({
  id: UserId.make("00000000-0000-4000-8000-000000000001"),
  email: Option.none(),
  createdAt: new Date(0),
  updatedAt: new Date(0)
})

/** Claims issued at the test clock's now, living one hour. */
const claimsNow = Effect.map(
  Effect.clockWith((clock) => clock.currentTimeMillis),
  (now) =>
    AccessTokenClaims.issue({
      user,
      session: { sessionId: "00000000-0000-4000-8000-0000000000aa", aal: "aal1", amr: [] },
      issuer: "http://localhost:8081/auth/v1",
      now: new Date(now),
      lifetime: Duration.hours(1)
    })
)

/** A current key of `algorithm` in the store, as a first start would make it. */
const currentKey = (algorithm: SigningKey.StoredAlgorithm) =>
  Effect.gen(function* () {
    const tokens = yield* AccessTokens
    const privateJwk = yield* tokens.generateKey(algorithm)
    const kid = SigningKey.Kid.make(`key-${algorithm}`)
    yield* (yield* SigningKeyStore).insert(SigningKey.first({ kid, algorithm, privateJwk }, new Date(0)))
    return kid
  })

const signNow = Effect.gen(function* () {
  const tokens = yield* AccessTokens
  return Redacted.value(yield* tokens.sign(yield* claimsNow))
})

const failureOf = <A, E>(effect: Effect.Effect<A, E, AccessTokens>) =>
  Effect.map(Effect.either(effect), (result) => (Either.isLeft(result) ? result.left : undefined))

const hs256 = (
  payload: Record<string, unknown>,
  header: jose.CompactJWSHeaderParameters = { alg: "HS256" }
) =>
  Effect.promise(() =>
    new jose.CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader(header)
      .sign(new TextEncoder().encode(secret))
  )

/** The import parameters supabase-js uses per `alg` (Ed25519 as WebCrypto names it). */
const clientAlgorithms: Record<
  string,
  webcrypto.AlgorithmIdentifier | webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams
> = {
  RS256: { name: "RSASSA-PKCS1-v1_5", hash: { name: "SHA-256" } },
  ES256: { name: "ECDSA", namedCurve: "P-256" },
  EdDSA: { name: "Ed25519" }
}

/** A published key as WebCrypto's JsonWebKey: its string members and key_ops. */
const asWebJwk = (key: Record<string, unknown>): webcrypto.JsonWebKey => {
  const out: webcrypto.JsonWebKey = {}
  for (const member of ["kty", "alg", "use", "n", "e", "crv", "x", "y"] as const) {
    const value = key[member]
    if (typeof value === "string") out[member] = value
  }
  if (Array.isArray(key.key_ops))
    out.key_ops = key.key_ops.filter((op): op is string => typeof op === "string")
  return out
}

const privateMembers = ["d", "p", "q", "dp", "dq", "qi", "k", "oth"]

describe("JoseAccessTokens", () => {
  for (const algorithm of ["RS256", "ES256", "EdDSA"] as const) {
    it.effect(`signs with a stored ${algorithm} key and verifies what it signed`, () =>
      Effect.gen(function* () {
        const kid = yield* currentKey(algorithm)
        const token = yield* signNow
        expect(jose.decodeProtectedHeader(token)).toEqual({ alg: algorithm, kid, typ: "JWT" })
        const verified = yield* (yield* AccessTokens).verify(token)
        expect(verified.alg).toBe(algorithm)
        expect(verified.kid).toEqual(Option.some(kid))
        expect(verified.claims.sub).toBe(user.id)
        expect(verified.claims.role).toBe("authenticated")
        expect(verified.payload.session_id).toBe("00000000-0000-4000-8000-0000000000aa")
        // A client's own check, as resource servers make it: jose against the JWKS (at the
        // TestClock's time, as the token's `exp` is).
        const jwks = jose.createLocalJWKSet({ keys: [...(yield* (yield* AccessTokens).jwks).keys] })
        const checked = yield* Effect.promise(() =>
          jose.jwtVerify(token, jwks, { algorithms: [algorithm], currentDate: new Date(0) })
        )
        expect(checked.payload.sub).toBe(user.id)
      }).pipe(Effect.provide(layerWith()))
    )
  }

  it.effect(
    "verifies HS256 tokens with JWT_SECRET, without a kid or with an unknown one, service tokens too",
    () =>
      Effect.gen(function* () {
        yield* currentKey("RS256")
        const tokens = yield* AccessTokens
        const service = yield* hs256({ iss: "supabase", role: "service_role", iat: 0, exp: 3600 })
        const verified = yield* tokens.verify(service)
        expect(verified.claims.role).toBe("service_role")
        expect(verified.claims.sub).toBeUndefined()
        expect(verified.kid).toEqual(Option.none())
        const unknownKid = yield* hs256(
          { sub: user.id, role: "authenticated", exp: 3600 },
          { alg: "HS256", kid: "legacy" }
        )
        expect((yield* tokens.verify(unknownKid)).kid).toEqual(Option.some("legacy"))
        const wrongSecret = yield* Effect.promise(() =>
          new jose.CompactSign(new TextEncoder().encode("{}"))
            .setProtectedHeader({ alg: "HS256" })
            .sign(new TextEncoder().encode("another secret"))
        )
        expect((yield* failureOf(tokens.verify(wrongSecret)))?.message).toBe(
          "invalid JWT: unable to parse or verify signature, token signature is invalid: signature is invalid"
        )
      }).pipe(Effect.provide(layerWith({ secret: Option.some(Redacted.make(secret)) })))
  )

  it.effect("refuses an algorithm outside JWT_VALID_METHODS", () =>
    Effect.gen(function* () {
      yield* currentKey("RS256")
      const token = yield* hs256({ role: "service_role", exp: 3600 })
      const failure = yield* failureOf((yield* AccessTokens).verify(token))
      expect(failure?.reason).toBe("algorithm_not_allowed")
      expect(failure?.message).toBe(
        "invalid JWT: unable to parse or verify signature, token signature is invalid: signing method HS256 is invalid"
      )
    }).pipe(
      Effect.provide(layerWith({ secret: Option.some(Redacted.make(secret)), validMethods: ["RS256"] }))
    )
  )

  it.effect("refuses a kid no key has", () =>
    Effect.gen(function* () {
      yield* currentKey("RS256")
      const foreign = yield* Effect.promise(() => jose.generateKeyPair("RS256"))
      const token = yield* Effect.promise(() =>
        new jose.CompactSign(new TextEncoder().encode(JSON.stringify({ exp: 3600 })))
          .setProtectedHeader({ alg: "RS256", kid: "foreign" })
          .sign(foreign.privateKey)
      )
      const failure = yield* failureOf((yield* AccessTokens).verify(token))
      expect(failure?.reason).toBe("unknown_key")
      expect(failure?.message).toBe(
        "invalid JWT: unable to parse or verify signature, token is unverifiable: error while executing keyfunc: unrecognized JWT kid foreign for algorithm RS256"
      )
    }).pipe(Effect.provide(layerWith()))
  )

  it.effect("refuses an expired token, in Supabase Auth's words", () =>
    Effect.gen(function* () {
      yield* currentKey("ES256")
      const token = yield* signNow
      yield* TestClock.adjust(Duration.sum(Duration.hours(1), Duration.seconds(5)))
      const failure = yield* failureOf((yield* AccessTokens).verify(token))
      expect(failure?.reason).toBe("expired")
      expect(failure?.message).toBe(
        "invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired by 5s"
      )
    }).pipe(Effect.provide(layerWith()))
  )

  it.effect("refuses a tampered token and malformed ones", () =>
    Effect.gen(function* () {
      yield* currentKey("RS256")
      const token = yield* signNow
      const [header, payload, signature] = token.split(".")
      const claims = JSON.parse(new TextDecoder().decode(jose.base64url.decode(payload ?? "")))
      const forged = jose.base64url.encode(JSON.stringify({ ...claims, role: "service_role" }))
      const tokens = yield* AccessTokens
      const failure = yield* failureOf(tokens.verify(`${header}.${forged}.${signature}`))
      expect(failure?.reason).toBe("bad_signature")
      expect(failure?.message).toBe(
        "invalid JWT: unable to parse or verify signature, token signature is invalid: crypto/rsa: verification error"
      )
      expect((yield* failureOf(tokens.verify("not-a-jwt")))?.message).toBe(
        "invalid JWT: unable to parse or verify signature, token is malformed: token contains an invalid number of segments"
      )
      expect((yield* failureOf(tokens.verify(`${header}.%%%.${signature}`)))?.reason).toBe("malformed")
    }).pipe(Effect.provide(layerWith()))
  )

  for (const algorithm of ["ES256", "EdDSA"] as const) {
    it.effect(`refuses a ${algorithm} token whose signature does not match, or is not base64url`, () =>
      Effect.gen(function* () {
        yield* currentKey(algorithm)
        const token = yield* signNow
        const [header, payload, signature = ""] = token.split(".")
        const tokens = yield* AccessTokens
        // Another token's signature, of the right length: a well-formed signature that does not match.
        const other = (yield* signNow).split(".")[2]
        const claims = JSON.parse(new TextDecoder().decode(jose.base64url.decode(payload ?? "")))
        const forged = jose.base64url.encode(JSON.stringify({ ...claims, role: "service_role" }))
        expect((yield* failureOf(tokens.verify(`${header}.${forged}.${other}`)))?.reason).toBe(
          "bad_signature"
        )
        const truncated = signature.slice(0, 20)
        expect((yield* failureOf(tokens.verify(`${header}.${payload}.${truncated}`)))?.reason).toBe(
          "bad_signature"
        )
        expect((yield* failureOf(tokens.verify(`${header}.${payload}.${signature}=`)))?.message).toBe(
          "invalid JWT: unable to parse or verify signature, token is malformed: could not base64 decode signature"
        )
        expect((yield* tokens.verify(token)).alg).toBe(algorithm)
      }).pipe(Effect.provide(layerWith()))
    )
  }

  it.effect("refuses an HS256 token with a signature of another length or over other claims", () =>
    Effect.gen(function* () {
      yield* currentKey("RS256")
      const tokens = yield* AccessTokens
      const token = yield* hs256({ sub: user.id, role: "authenticated", exp: 3600 })
      const [header, payload, signature = ""] = token.split(".")
      expect((yield* failureOf(tokens.verify(`${header}.${payload}.${signature.slice(1)}`)))?.reason).toBe(
        "bad_signature"
      )
      expect((yield* failureOf(tokens.verify(`${header}.${payload}.`)))?.reason).toBe("bad_signature")
      const forged = jose.base64url.encode(JSON.stringify({ sub: user.id, role: "service_role", exp: 3600 }))
      expect((yield* failureOf(tokens.verify(`${header}.${forged}.${signature}`)))?.message).toBe(
        "invalid JWT: unable to parse or verify signature, token signature is invalid: signature is invalid"
      )
    }).pipe(Effect.provide(layerWith({ secret: Option.some(Redacted.make(secret)) })))
  )

  it.effect("publishes public keys only, with kid, alg, use and key_ops", () =>
    Effect.gen(function* () {
      const rsa = yield* currentKey("RS256")
      yield* AddKey.addKey("ES256")
      yield* AddKey.addKey("EdDSA")
      const jwks = yield* (yield* AccessTokens).jwks
      expect(jwks.keys.map((key) => key.alg)).toEqual(["RS256", "ES256", "EdDSA"])
      expect(jwks.keys[0]?.kid).toBe(rsa)
      for (const key of jwks.keys) {
        for (const member of privateMembers) expect(key).not.toHaveProperty(member)
        expect(key.use).toBe("sig")
        expect(key.key_ops).toEqual(["verify"])
        // What supabase-js's getClaims does with it: WebCrypto checks use, key_ops and alg.
        yield* Effect.promise(() =>
          webcrypto.subtle.importKey("jwk", asWebJwk(key), clientAlgorithms[String(key.alg)] ?? "", true, [
            "verify"
          ])
        )
      }
    }).pipe(Effect.provide(layerWith()))
  )

  it.effect("a token signed before a rotation still verifies after it; new tokens carry the new key", () =>
    Effect.gen(function* () {
      const first = yield* EnsureSigningKey.ensureSigningKey
      const tokens = yield* AccessTokens
      const standby = yield* AddKey.addKey("RS256")
      yield* TestClock.adjust("15 minutes")
      const before = yield* signNow
      expect(jose.decodeProtectedHeader(before).kid).toBe(first.kid)
      const rotation = yield* RotateKeys.rotateKeys
      expect(rotation.current).toBe(standby.kid)
      // Until its cached view of the keys expires, an instance still signs with the old key.
      yield* TestClock.adjust("31 seconds")
      const after = yield* signNow
      expect(jose.decodeProtectedHeader(after).kid).toBe(standby.kid)
      expect((yield* tokens.verify(before)).kid).toEqual(Option.some(first.kid))
      expect((yield* tokens.verify(after)).kid).toEqual(Option.some(standby.kid))
      expect((yield* tokens.jwks).keys.map((key) => key.kid)).toEqual([standby.kid, first.kid])
      // Once every token the old key signed has expired, it is no longer published.
      yield* TestClock.adjust("1 hour")
      expect((yield* tokens.jwks).keys.map((key) => key.kid)).toEqual([standby.kid])
    }).pipe(Effect.provide(layerWith()))
  )

  it.effect(
    "a token accepted before is checked again at every use: a forged copy, expiry, its key retired",
    () =>
      Effect.gen(function* () {
        const first = yield* EnsureSigningKey.ensureSigningKey
        const tokens = yield* AccessTokens
        const token = yield* signNow
        const [header, payload, signature] = token.split(".")
        expect((yield* tokens.verify(token)).claims.sub).toBe(user.id)
        // Its signature passed once; the same signature over other claims still does not.
        const claims = JSON.parse(new TextDecoder().decode(jose.base64url.decode(payload ?? "")))
        const forged = jose.base64url.encode(JSON.stringify({ ...claims, role: "service_role" }))
        expect((yield* failureOf(tokens.verify(`${header}.${forged}.${signature}`)))?.reason).toBe(
          "bad_signature"
        )
        expect((yield* tokens.verify(token)).claims.role).toBe(claims.role)

        // Its key retired (a leaked key): refused once the instance's view of the keys is fresh.
        yield* AddKey.addKey("RS256")
        yield* TestClock.adjust("15 minutes")
        yield* RotateKeys.rotateKeys
        const second = yield* signNow
        expect((yield* tokens.verify(second)).claims.sub).toBe(user.id)
        yield* RetireKey.retireKey(first.kid)
        yield* TestClock.adjust("31 seconds")
        expect((yield* failureOf(tokens.verify(token)))?.reason).toBe("unknown_key")
        expect((yield* tokens.verify(second)).claims.sub).toBe(user.id)
        // And a token accepted before is refused once it has expired.
        yield* TestClock.adjust("1 hour")
        expect((yield* failureOf(tokens.verify(second)))?.reason).toBe("expired")
      }).pipe(Effect.provide(layerWith()))
  )

  it.effect("configured keys win: an oct key with key_ops sign signs HS256 and stays out of the JWKS", () =>
    Effect.gen(function* () {
      yield* currentKey("RS256")
      expect((yield* EnsureSigningKey.ensureSigningKey)._tag).toBe("Configured")
      const token = yield* signNow
      expect(jose.decodeProtectedHeader(token)).toEqual({ alg: "HS256", kid: "configured-hs", typ: "JWT" })
      const checked = yield* Effect.promise(() =>
        jose.jwtVerify(token, new TextEncoder().encode(secret), {
          algorithms: ["HS256"],
          currentDate: new Date(0)
        })
      )
      expect(checked.payload.sub).toBe(user.id)
      const tokens = yield* AccessTokens
      expect((yield* tokens.verify(token)).alg).toBe("HS256")
      expect((yield* tokens.jwks).keys.map((key) => key.kid)).toEqual(["key-RS256"])
    }).pipe(
      Effect.provide(
        layerWith({
          keys: [
            {
              kty: "oct",
              kid: "configured-hs",
              alg: "HS256",
              k: jose.base64url.encode(secret),
              key_ops: ["sign", "verify"]
            }
          ]
        })
      )
    )
  )

  // Supabase Auth signs with a configured key of these too (conf.GetSigningAlg).
  for (const [alg, options] of [
    ["RS512", { modulusLength: 2048 }],
    ["ES512", { crv: "P-521" }]
  ] as const) {
    it.effect(`a configured ${alg} key signs, verifies what it signed and is published`, () =>
      Effect.gen(function* () {
        const { privateKey, publicKey } = yield* Effect.promise(() =>
          jose.generateKeyPair(alg, { ...options, extractable: true })
        )
        const privateJwk = yield* Effect.promise(() => jose.exportJWK(privateKey))
        const configured = { ...privateJwk, kid: `configured-${alg}`, alg, key_ops: ["sign", "verify"] }
        const tokens = yield* Effect.provide(
          Effect.gen(function* () {
            expect((yield* EnsureSigningKey.ensureSigningKey)._tag).toBe("Configured")
            const token = yield* signNow
            const service = yield* AccessTokens
            return { token, verified: yield* service.verify(token), jwks: yield* service.jwks }
          }),
          layerWith({ keys: [configured] })
        )
        expect(jose.decodeProtectedHeader(tokens.token)).toEqual({
          alg,
          kid: `configured-${alg}`,
          typ: "JWT"
        })
        expect(tokens.verified.alg).toBe(alg)
        // Checked by another implementation too, with the public key alone.
        const checked = yield* Effect.promise(() =>
          jose.jwtVerify(tokens.token, publicKey, { algorithms: [alg], currentDate: new Date(0) })
        )
        expect(checked.payload.sub).toBe(user.id)
        const published = tokens.jwks.keys.find((key) => key.kid === `configured-${alg}`)
        expect(published).toMatchObject({ alg, use: "sig", key_ops: ["verify"] })
        expect(published).not.toHaveProperty("d")
        // The signature over other claims does not pass.
        const [header, payload, signature] = tokens.token.split(".")
        const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString())
        const elevated = Buffer.from(JSON.stringify({ ...claims, role: "service_role" })).toString(
          "base64url"
        )
        const forged = `${header}.${elevated}.${signature}`
        expect(
          yield* Effect.provide(
            Effect.flip(Effect.flatMap(AccessTokens, (service) => service.verify(forged))),
            layerWith({ keys: [configured] })
          )
        ).toMatchObject({ reason: "bad_signature" })
      })
    )
  }

  it.effect("reads the stored keys once per cache lifetime, not per request", () =>
    Effect.gen(function* () {
      yield* currentKey("ES256")
      const token = yield* signNow
      const tokens = yield* AccessTokens
      yield* Effect.forEach(Array.from({ length: 50 }), () => tokens.verify(token), { concurrency: 10 })
      expect(reads.count).toBe(1)
      yield* TestClock.adjust("31 seconds")
      yield* tokens.verify(token)
      expect(reads.count).toBe(2)
    }).pipe(Effect.provide(countingLayer))
  )

  it.effect("a configured key jose cannot use stops the layer from building", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(
        Layer.build(
          layerWith({
            keys: [{ kid: "bad", alg: "RS256", kty: "RSA", n: "AA", e: "AQAB", d: "AA", key_ops: ["sign"] }]
          })
        ).pipe(Effect.scoped)
      )
      expect(Exit.isFailure(exit)).toBe(true)
    })
  )
})

const reads = { count: 0 }

/** The memory store, counting reads of the key list. */
const countingStore = Layer.effect(
  SigningKeyStore,
  Effect.map(SigningKeyStore, (store) => ({
    ...store,
    list: Effect.zipRight(
      Effect.sync(() => {
        reads.count += 1
      }),
      store.list
    )
  }))
).pipe(Layer.provide(SigningKeyStoreMemory.layer))

const countingLayer = JoseAccessTokens.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(countingStore, KeyFixtures.settingsLayer()))
)
