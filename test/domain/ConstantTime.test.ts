import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { constantTimeEqual } from "../../domain/ConstantTime.js"

describe("ConstantTime.constantTimeEqual", () => {
  it.each([
    ["both empty", "", "", true],
    ["equal", "abc", "abc", true],
    ["equal 64-character hashes", "f".repeat(64), "f".repeat(64), true],
    ["equal non-ASCII", "jürgen", "jürgen", true],
    ["differ in the first character", "abc", "xbc", false],
    ["differ in the last character", "abc", "abx", false],
    ["differ only in case", "abc", "ABC", false],
    ["empty and non-empty", "", "a", false],
    ["non-empty and empty", "a", "", false],
    ["one a prefix of the other", "abc", "abcd", false],
    ["longer first", "abcd", "abc", false],
    ["same length, all different", "aaaa", "bbbb", false],
    ["NUL against empty", "\u0000", "", false],
    ["NUL against another character", "\u0000", "\u0001", false],
    ["characters whose codes differ above the low byte", "\u0161", "\u0061", false]
  ])("%s: %j vs %j → %s", (_, a, b, expected) => {
    expect(constantTimeEqual(a, b)).toBe(expected)
  })

  it("agrees with === on any pair of strings", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b)
        expect(constantTimeEqual(a, a)).toBe(true)
      })
    )
  })

  it("detects a single changed character anywhere", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.nat(),
        fc.integer({ min: 1, max: 0xffff }),
        (s, i, delta) => {
          const at = i % s.length
          const changed =
            s.slice(0, at) + String.fromCharCode((s.charCodeAt(at) + delta) % 0x10000) + s.slice(at + 1)
          expect(constantTimeEqual(s, changed)).toBe(false)
        }
      )
    )
  })
})
