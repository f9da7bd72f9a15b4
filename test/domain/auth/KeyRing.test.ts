import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as KeyRing from "../../../domain/auth/KeyRing.js"
import * as SigningKey from "../../../domain/auth/SigningKey.js"

const now = new Date(Date.UTC(2025, 0, 1))
const lifetimes = SigningKey.lifetimes(Duration.hours(1), Duration.seconds(30))
const rsa = { kty: "RSA", n: "n", e: "AQAB", d: "d" }
const stored = (kid: string, status: SigningKey.Status) =>
  new SigningKey.SigningKey({
    kid: SigningKey.Kid.make(kid),
    algorithm: "RS256",
    status,
    privateJwk: Option.some(Redacted.make(rsa)),
    createdAt: now,
    activatedAt: Option.none(),
    stoppedSigningAt: status === "previous" ? Option.some(now) : Option.none(),
    retiredAt: Option.none()
  })

const configured = (jwks: ReadonlyArray<Record<string, unknown>>) => {
  const result = KeyRing.fromConfiguration(jwks)
  if (Either.isLeft(result)) throw new Error(result.left.message)
  return result.right
}

const failure = (jwks: ReadonlyArray<Record<string, unknown>>) => {
  const result = KeyRing.fromConfiguration(jwks)
  return Either.isLeft(result) ? result.left.message : "accepted"
}

describe("KeyRing.fromConfiguration", () => {
  it("reads RS256, ES256, EdDSA and HS256 keys; the one with key_ops sign signs", () => {
    const keys = configured([
      { kid: "r", alg: "RS256", kty: "RSA", n: "n", e: "AQAB", d: "d", key_ops: ["sign", "verify"] },
      { kid: "e", alg: "ES256", kty: "EC", crv: "P-256", x: "x", y: "y", key_ops: ["verify"] },
      { kid: "o", alg: "EdDSA", kty: "OKP", crv: "Ed25519", x: "x" },
      { kid: "h", alg: "HS256", kty: "oct", k: "c2VjcmV0", key_ops: ["verify"] }
    ])
    expect(keys.map((key) => [key.kid, key.algorithm, key.signs])).toEqual([
      ["r", "RS256", true],
      ["e", "ES256", false],
      ["o", "EdDSA", false],
      ["h", "HS256", false]
    ])
  })

  it("refuses what cannot work, saying which key", () => {
    expect(failure([{ alg: "RS256", kty: "RSA", n: "n", e: "e" }])).toContain("needs a kid")
    expect(failure([{ kid: "a", alg: "PS256", kty: "RSA", n: "n", e: "e" }])).toContain("alg must be one of")
    expect(failure([{ kid: "a", alg: "ES256", kty: "RSA", n: "n", e: "e" }])).toContain(
      "needs kty EC and crv P-256"
    )
    expect(failure([{ kid: "a", alg: "RS256", kty: "RSA", n: "n", e: "e", key_ops: ["sign"] }])).toContain(
      "missing d"
    )
    expect(failure([{ kid: "a", alg: "RS256", kty: "RSA", n: "n", e: "e", key_ops: "sign" }])).toContain(
      "key_ops must be a list"
    )
    expect(
      failure([
        { kid: "a", alg: "HS256", kty: "oct", k: "k" },
        { kid: "a", alg: "HS256", kty: "oct", k: "k" }
      ])
    ).toContain("appears twice")
    expect(
      failure([
        { kid: "a", alg: "HS256", kty: "oct", k: "k", key_ops: ["sign"] },
        { kid: "b", alg: "HS256", kty: "oct", k: "k", key_ops: ["sign"] }
      ])
    ).toBe("multiple signing keys detected, only 1 signing key is supported")
  })
})

const all = SigningKey.defaultValidMethods

describe("KeyRing.make", () => {
  const storedKeys = [stored("cur", "current"), stored("next", "standby"), stored("old", "previous")]

  it("without configured keys: the stored current key signs, live stored keys verify and are published", () => {
    const ring = KeyRing.make([], storedKeys, now, lifetimes)
    expect(Option.map(ring.signing, (entry) => entry.kid)).toEqual(Option.some("cur"))
    expect([...ring.verifying.keys()]).toEqual(["cur", "next", "old"])
    expect(KeyRing.publishedAt(ring, now).map((jwk) => jwk.kid)).toEqual(["cur", "next", "old"])
  })

  it("a previous key past its window neither verifies nor is published", () => {
    const later = new Date(now.getTime() + Duration.toMillis(Duration.hours(2)))
    const ring = KeyRing.make([], storedKeys, later, lifetimes)
    expect([...ring.verifying.keys()]).toEqual(["cur", "next"])
  })

  it("a ring kept past a previous key's window stops verifying with it and publishing it", () => {
    const ring = KeyRing.make([], storedKeys, now, lifetimes)
    const end = new Date(
      now.getTime() + Duration.toMillis(Duration.sum(Duration.hours(1), Duration.seconds(30)))
    )
    const before = new Date(end.getTime() - 1)
    expect(Either.isRight(KeyRing.verifierFor(ring, { alg: "RS256", kid: "old" }, all, true, before))).toBe(
      true
    )
    expect(KeyRing.publishedAt(ring, before).map((jwk) => jwk.kid)).toEqual(["cur", "next", "old"])
    const after = KeyRing.verifierFor(ring, { alg: "RS256", kid: "old" }, all, true, end)
    expect(Either.isLeft(after) && after.left.reason).toBe("unknown_key")
    expect(KeyRing.publishedAt(ring, end).map((jwk) => jwk.kid)).toEqual(["cur", "next"])
  })

  it("configured keys win: the configured signer signs, a stored key of the same kid is left out", () => {
    const keys = configured([
      { kid: "cfg", alg: "RS256", kty: "RSA", n: "n2", e: "AQAB", d: "d2", key_ops: ["sign", "verify"] },
      { kid: "next", alg: "RS256", kty: "RSA", n: "n3", e: "AQAB" },
      { kid: "hmac", alg: "HS256", kty: "oct", k: "c2VjcmV0" }
    ])
    const ring = KeyRing.make(keys, storedKeys, now, lifetimes)
    expect(Option.map(ring.signing, (entry) => [entry.kid, entry.source])).toEqual(
      Option.some(["cfg", "configuration"])
    )
    expect(ring.verifying.get("next")?.source).toBe("configuration")
    expect(ring.verifying.get("hmac")?.algorithm).toBe("HS256")
    // The oct key verifies but is never published.
    expect(KeyRing.publishedAt(ring, now).map((jwk) => jwk.kid)).toEqual(["cfg", "next", "cur", "old"])
    for (const { jwk } of ring.published) expect(jwk.k).toBeUndefined()
  })
})

describe("KeyRing.verifierFor", () => {
  const ring = KeyRing.make([], [stored("cur", "current")], now, lifetimes)

  it("finds the key by kid", () => {
    const verifier = KeyRing.verifierFor(ring, { alg: "RS256", kid: "cur" }, all, true, now)
    expect(Either.isRight(verifier) && verifier.right._tag === "Key" && verifier.right.entry.kid).toBe("cur")
  })

  it("an HS256 token falls back to the secret when its kid is unknown or absent, as Supabase Auth does", () => {
    expect(KeyRing.verifierFor(ring, { alg: "HS256", kid: "nope" }, all, true, now)).toEqual(
      Either.right({ _tag: "Secret" })
    )
    expect(KeyRing.verifierFor(ring, { alg: "HS256", kid: undefined }, all, true, now)).toEqual(
      Either.right({ _tag: "Secret" })
    )
  })

  it("refuses an unknown kid for other algorithms, and HS256 without a secret", () => {
    const unknown = KeyRing.verifierFor(ring, { alg: "RS256", kid: "nope" }, all, true, now)
    expect(Either.isLeft(unknown) && unknown.left.message).toBe(
      "invalid JWT: unable to parse or verify signature, token is unverifiable: error while executing keyfunc: unrecognized JWT kid nope for algorithm RS256"
    )
    const noKid = KeyRing.verifierFor(ring, { alg: "ES256", kid: undefined }, all, true, now)
    expect(Either.isLeft(noKid) && noKid.left.message).toContain(
      "unrecognized JWT kid <nil> for algorithm ES256"
    )
    const noSecret = KeyRing.verifierFor(ring, { alg: "HS256", kid: undefined }, all, false, now)
    expect(Either.isLeft(noSecret) && noSecret.left.reason).toBe("unknown_key")
  })

  it("refuses algorithms outside JWT_VALID_METHODS before looking at keys", () => {
    const refused = KeyRing.verifierFor(ring, { alg: "HS256", kid: "cur" }, ["RS256"], true, now)
    expect(Either.isLeft(refused) && refused.left.message).toBe(
      "invalid JWT: unable to parse or verify signature, token signature is invalid: signing method HS256 is invalid"
    )
    const ps = KeyRing.verifierFor(ring, { alg: "PS256", kid: "cur" }, all, true, now)
    expect(Either.isLeft(ps) && ps.left.reason).toBe("algorithm_not_allowed")
    const none = KeyRing.verifierFor(ring, { alg: "nonsense", kid: "cur" }, all, true, now)
    expect(Either.isLeft(none) && none.left.message).toContain("signing method (alg) is unavailable")
  })
})
