import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as JwtKeys from "../../../bootstrap/auth/JwtKeys.js"

const rsaSigning = {
  kty: "RSA",
  kid: "rsa-1",
  alg: "RS256",
  key_ops: ["sign", "verify"],
  n: "modulus",
  e: "AQAB",
  d: "private-exponent"
}
const edVerifying = {
  kty: "OKP",
  crv: "Ed25519",
  kid: "ed-old",
  alg: "EdDSA",
  key_ops: ["verify"],
  x: "public"
}
const hmac = { kty: "oct", kid: "hs", alg: "HS256", key_ops: ["sign", "verify"], k: "c2VjcmV0" }

const parse = (keys: unknown) => JwtKeys.parse(JSON.stringify(keys))

describe("JWT_KEYS", () => {
  it("reads the keys, keeping each JWK whole and redacted", () => {
    const keys = Either.getOrThrow(parse([rsaSigning, edVerifying]))
    expect(keys.map((key) => [key.kid, key.alg, key.keyOps])).toEqual([
      ["rsa-1", "RS256", ["sign", "verify"]],
      ["ed-old", "EdDSA", ["verify"]]
    ])
    expect(keys[0] && Redacted.value(keys[0].jwk)).toEqual(rsaSigning)
    expect(String(keys[0]?.jwk)).not.toContain("private-exponent")
    expect(JwtKeys.signingKey(keys)?.kid).toBe("rsa-1")
  })

  it("takes a symmetric signing key with its k, and an empty array or null as no keys", () => {
    expect(Either.map(parse([hmac]), (keys) => keys.map((key) => key.alg))).toEqual(Either.right(["HS256"]))
    expect(parse([])).toEqual(Either.right([]))
    expect(JwtKeys.parse("null")).toEqual(Either.right([]))
  })

  it("takes a key without key_ops as one that only verifies, as Supabase Auth does", () => {
    const keys = Either.getOrThrow(parse([rsaSigning, { ...edVerifying, key_ops: undefined }]))
    expect(keys.map((key) => [key.kid, key.keyOps])).toEqual([
      ["rsa-1", ["sign", "verify"]],
      ["ed-old", []]
    ])
    expect(JwtKeys.signingKey(keys)?.kid).toBe("rsa-1")
  })

  it.each([
    ["not JSON", "[{", "expected a JSON array of JWKs (the value is no valid JSON)"],
    ["an object", JSON.stringify(rsaSigning), "expected a JSON array of JWKs"],
    ["a string in the array", JSON.stringify(["key"]), "key 1: expected a JWK object"],
    [
      "a key without kid",
      JSON.stringify([{ ...rsaSigning, kid: "" }]),
      "key 1: expected kid, a non-empty string"
    ],
    [
      "an algorithm Supabase Auth cannot sign with either",
      JSON.stringify([rsaSigning, { ...edVerifying, alg: "PS256" }]),
      "key 2: expected alg HS256, RS256, ES256, EdDSA, RS512, ES512"
    ],
    [
      "a key type that does not fit the algorithm",
      JSON.stringify([{ ...rsaSigning, kty: "EC" }]),
      "key 1: alg RS256 needs kty RSA"
    ],
    [
      "key_ops that is no list",
      JSON.stringify([{ ...rsaSigning, key_ops: "sign" }]),
      'key 1: expected key_ops, a list such as ["sign","verify"]'
    ],
    [
      "a signing key without its private part",
      JSON.stringify([{ ...rsaSigning, d: undefined }]),
      "key 1: a signing key needs its private part (d)"
    ],
    [
      "a shared kid",
      JSON.stringify([rsaSigning, { ...edVerifying, kid: "rsa-1" }]),
      "key 2: kid rsa-1 is used by an earlier key"
    ],
    [
      "two signing keys",
      JSON.stringify([rsaSigning, hmac]),
      "expected exactly one key whose key_ops include sign, found 2"
    ],
    [
      "no signing key",
      JSON.stringify([edVerifying]),
      "expected exactly one key whose key_ops include sign, found 0"
    ]
  ])("refuses %s on one line", (_, text, message) => {
    expect(JwtKeys.parse(text)).toEqual(Either.left(message))
  })

  it("never quotes the value, which holds private keys", () => {
    const text = `[{"kty":"oct","k":"hunter2",`
    expect(Either.getLeft(JwtKeys.parse(text)).pipe((message) => JSON.stringify(message))).not.toContain(
      "hunter2"
    )
  })
})

describe("JWT_VALID_METHODS", () => {
  it("reads a trimmed comma-separated list of HS256, RS256, ES256 and EdDSA", () => {
    expect(JwtKeys.parseMethods(" RS256 ,HS256,, EdDSA")).toEqual(Either.right(["RS256", "HS256", "EdDSA"]))
  })

  it.each([
    ["none", []],
    ["RS256,PS256", ["RS256"]],
    ["rs256", []]
  ])(
    "takes %j, keeping only the algorithms it verifies with (ConfigWarnings names the rest)",
    (text, kept) => {
      expect(JwtKeys.parseMethods(text)).toEqual(Either.right(kept))
    }
  )

  it.each([",", " , "])("refuses %j, which names no method", (text) => {
    expect(JwtKeys.parseMethods(text)).toEqual(
      Either.left("expected a comma-separated list of HS256, RS256, ES256, EdDSA, RS512, ES512")
    )
  })
})
