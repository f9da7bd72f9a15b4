import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Pkce from "../../domain/Pkce.js"

/** RFC 7636 Appendix B: the verifier is the base64url of the 32 octets listed there. */
const rfcVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
const rfcChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

/** An independent S256 implementation to check the module against. */
const s256 = (verifier: string) => createHash("sha256").update(verifier, "ascii").digest("base64url")

const challenge = (value: string): Pkce.CodeChallenge => Schema.decodeSync(Pkce.CodeChallenge)(value)

const reasonOfParse = (value: string, method: string | undefined) =>
  Either.match(Pkce.parseChallenge(value, method), {
    onLeft: (error) => error.reason,
    onRight: () => "ok"
  })

const reasonOfVerify = (verifier: string, stored: Pkce.CodeChallenge) =>
  Pkce.verify(verifier, stored).pipe(
    Effect.match({ onFailure: (error) => error.reason, onSuccess: () => "ok" })
  )

const unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"

describe("Pkce: the RFC 7636 Appendix B vector", () => {
  it("the hard-coded RFC values agree with node's crypto", () => {
    const octets = [
      116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214,
      191, 240, 91, 88, 5, 88, 83, 132, 141, 121
    ]
    expect(Buffer.from(octets).toString("base64url")).toBe(rfcVerifier)
    expect(s256(rfcVerifier)).toBe(rfcChallenge)
  })

  it.effect("challengeOf computes the RFC challenge", () =>
    Effect.gen(function* () {
      expect(yield* Pkce.challengeOf(rfcVerifier)).toBe(rfcChallenge)
    })
  )

  it.effect("the RFC verifier passes against the RFC challenge", () =>
    Effect.gen(function* () {
      expect(yield* reasonOfVerify(rfcVerifier, challenge(rfcChallenge))).toBe("ok")
    })
  )

  it.effect("challengeOf agrees with node's crypto on random verifiers", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.string({ unit: fc.constantFrom(...unreserved.split("")), minLength: 43, maxLength: 128 }),
          async (verifier) => {
            const computed = await Effect.runPromise(Pkce.challengeOf(verifier))
            expect(computed).toBe(s256(verifier))
            expect(computed).toMatch(/^[A-Za-z0-9_-]{43}$/)
            expect(await Effect.runPromise(reasonOfVerify(verifier, challenge(computed)))).toBe("ok")
          }
        ),
        { numRuns: 200 }
      )
    )
  )
})

describe("Pkce.parseChallenge", () => {
  it("accepts a well-formed S256 challenge", () => {
    expect(Pkce.parseChallenge(rfcChallenge, "S256")).toEqual(Either.right(rfcChallenge))
  })

  it.each([
    ["plain", rfcChallenge, "plain"],
    ["a missing method", rfcChallenge, undefined],
    ["an empty method", rfcChallenge, ""],
    ["lower-case s256", rfcChallenge, "s256"],
    ["S512", rfcChallenge, "S512"],
    ["plain with a plain-looking challenge", rfcVerifier, "plain"]
  ])("refuses %s as unsupported_method", (_, value, method) => {
    expect(reasonOfParse(value, method)).toBe("unsupported_method")
  })

  it.each([
    ["empty", ""],
    ["42 characters", rfcChallenge.slice(0, 42)],
    ["44 characters", `${rfcChallenge}A`],
    ["with base64 padding", `${rfcChallenge}=`],
    ["standard base64 alphabet (+)", `+${rfcChallenge.slice(1)}`],
    ["standard base64 alphabet (/)", `/${rfcChallenge.slice(1)}`],
    ["a dot (unreserved but not base64url)", `.${rfcChallenge.slice(1)}`],
    ["a tilde (unreserved but not base64url)", `~${rfcChallenge.slice(1)}`],
    ["a space", ` ${rfcChallenge.slice(1)}`],
    ["a trailing newline", `${rfcChallenge.slice(0, 42)}\n`],
    ["128 characters of unreserved", "a".repeat(128)],
    ["non-ASCII", `é${rfcChallenge.slice(1)}`]
  ])("refuses a challenge that is %s as malformed_challenge", (_, value) => {
    expect(reasonOfParse(value, "S256")).toBe("malformed_challenge")
  })
})

describe("Pkce.verify", () => {
  const stored = challenge(rfcChallenge)

  it.effect.each([
    ["43 characters", "a".repeat(43)],
    ["128 characters", "a".repeat(128)],
    ["every unreserved character", unreserved.padEnd(66, "x")]
  ] as const)("a verifier of %s is well-formed (it only mismatches)", ([, verifier]) =>
    Effect.gen(function* () {
      expect(yield* reasonOfVerify(verifier, stored)).toBe("mismatch")
    })
  )

  it.effect.each([
    ["empty", ""],
    ["42 characters", "a".repeat(42)],
    ["129 characters", "a".repeat(129)],
    ["the RFC verifier minus one character", rfcVerifier.slice(0, 42)],
    ["a plus sign", `${rfcVerifier.slice(0, 42)}+`],
    ["a slash", `${rfcVerifier.slice(0, 42)}/`],
    ["padding", `${rfcVerifier}=`],
    ["a space", `${rfcVerifier.slice(0, 42)} `],
    ["a trailing newline", `${rfcVerifier}\n`],
    ["non-ASCII", `${rfcVerifier.slice(0, 42)}é`]
  ] as const)("refuses a verifier of %s as malformed_verifier", ([, verifier]) =>
    Effect.gen(function* () {
      expect(yield* reasonOfVerify(verifier, stored)).toBe("malformed_verifier")
    })
  )

  it.effect.each([
    ["another well-formed verifier", "a".repeat(43)],
    ["the RFC verifier with one character changed", `${rfcVerifier.slice(0, 42)}l`],
    ["the challenge itself (plain)", rfcChallenge]
  ] as const)("refuses %s as mismatch", ([, verifier]) =>
    Effect.gen(function* () {
      expect(yield* reasonOfVerify(verifier, stored)).toBe("mismatch")
    })
  )
})
