import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as TokenKind from "../../domain/TokenKind.js"

const kinds: ReadonlyArray<TokenKind.TokenKind> = [
  "access",
  "refresh",
  "code",
  "client_secret",
  "state",
  "consent",
  "session",
  "verification"
]

describe("TokenKind", () => {
  it.each(kinds)("the %s prefix round-trips through kindOf", (kind) => {
    const p = TokenKind.prefix[kind]
    expect(TokenKind.kindOf(p)).toBe(kind)
    expect(TokenKind.kindOf(`${p}Zm9vYmFy_-123`)).toBe(kind)
  })

  it("every kind has a prefix and no prefix is shared", () => {
    expect(Object.keys(TokenKind.prefix).sort()).toEqual([...kinds].sort())
    const prefixes = kinds.map((kind) => TokenKind.prefix[kind])
    expect(new Set(prefixes).size).toBe(kinds.length)
  })

  it("no prefix is a prefix of another, so kindOf cannot depend on the order it tries them", () => {
    for (const a of kinds) {
      for (const b of kinds) {
        if (a !== b) expect(TokenKind.prefix[b].startsWith(TokenKind.prefix[a])).toBe(false)
      }
    }
  })

  it.each([
    ["empty", ""],
    ["no prefix", "Zm9vYmFy"],
    ["a prefix without its underscore", "lka"],
    ["an unknown lk prefix", "lkx_abc"],
    ["upper case", "LKA_abc"],
    ["a prefix not at the start", "xlka_abc"],
    ["leading space", " lka_abc"],
    ["a Supabase refresh token", "v1.abcdef"],
    ["a JWT", "eyJhbGciOiJIUzI1NiJ9.e30.sig"]
  ])("%s (%j) → undefined", (_, token) => {
    expect(TokenKind.kindOf(token)).toBeUndefined()
  })

  it("any suffix keeps the kind of the prefix", () => {
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.string(), (kind, suffix) => {
        expect(TokenKind.kindOf(TokenKind.prefix[kind] + suffix)).toBe(kind)
      })
    )
  })
})
