import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "fast-check"
import * as PasswordPolicy from "../../domain/PasswordPolicy.js"

describe("PasswordPolicy.parseRequiredCharacters", () => {
  it.each([
    // The examples of Supabase Auth's own decoder test.
    ["a:b:c", ["a", "b", "c"]],
    ["a\\:b:c", ["a:b", "c"]],
    ["a:b\\:c", ["a", "b:c"]],
    ["\\:a:b:c", [":a", "b", "c"]],
    ["a:b:c\\:", ["a", "b", "c:"]],
    ["::\\::", [":"]],
    ["", []],
    [" ", [" "]],
    // Beyond them.
    ["a\\:b\\:c", ["a:b:c"]],
    ["\\:", [":"]],
    ["\\", ["\\"]],
    ["a\\", ["a\\"]],
    ["a\\b:c", ["a\\b", "c"]],
    ["\\\\:", ["\\:"]],
    [":::", []],
    [
      "abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789",
      ["abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"]
    ],
    ["!@#$%^&*()_+-=[]{};'\\:\"|<>?,./`~", ["!@#$%^&*()_+-=[]{};':\"|<>?,./`~"]],
    ["äöü:🔑🗝", ["äöü", "🔑🗝"]]
  ])("%j → %j", (raw, expected) => {
    expect(PasswordPolicy.parseRequiredCharacters(raw)).toEqual(expected)
  })

  it("joins sets back to the raw value when colons are escaped", () => {
    const set = fc.string({ minLength: 1, unit: "grapheme" }).filter((s) => !s.includes("\\"))
    fc.assert(
      fc.property(fc.array(set, { maxLength: 6 }), (sets) => {
        const raw = sets.map((s) => s.replaceAll(":", "\\:")).join(":")
        expect(PasswordPolicy.parseRequiredCharacters(raw)).toEqual(sets)
      })
    )
  })
})

describe("PasswordPolicy.make", () => {
  it.each([
    [{}, 6, []],
    [{ minLength: 12 }, 12, []],
    [{ minLength: 4 }, 6, []],
    [{ minLength: 0 }, 6, []],
    [{ minLength: 8.5 }, 9, []],
    [{ minLength: Number.NaN }, 6, []],
    [{ requiredCharacters: "a:b" }, 6, ["a", "b"]],
    [{ requiredCharacters: ["abc", "", "123"] }, 6, ["abc", "123"]]
  ])("%j → minLength %d, sets %j", (options, minLength, sets) => {
    const policy = PasswordPolicy.make(options)
    expect(policy.minLength).toBe(minLength)
    expect(policy.requiredCharacters).toEqual(sets)
  })

  it("compares policies by value", () => {
    expect(PasswordPolicy.make({ minLength: 8, requiredCharacters: "a:b" })).toEqual(
      PasswordPolicy.make({ minLength: 8, requiredCharacters: ["a", "b"] })
    )
  })
})

const lowerUpperDigit = PasswordPolicy.make({
  minLength: 8,
  requiredCharacters: "abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789"
})
const charactersMessage =
  "Password should contain at least one character of each: abcdefghijklmnopqrstuvwxyz, ABCDEFGHIJKLMNOPQRSTUVWXYZ, 0123456789."

const outcome = (policy: PasswordPolicy.PasswordPolicy, password: string) =>
  Either.match(PasswordPolicy.check(policy, password), {
    onLeft: (error) => ({ reasons: error.reasons, message: error.message }),
    onRight: () => "ok" as const
  })

describe("PasswordPolicy.check", () => {
  const defaults = PasswordPolicy.make({})

  it.each([
    ["123456", "ok"],
    ["abcdef", "ok"],
    ["12345", { reasons: ["length"], message: "Password should be at least 6 characters." }],
    ["", { reasons: ["length"], message: "Password should be at least 6 characters." }],
    // Code points, not UTF-16 units: each key is two units but one character.
    ["🔑🔑🔑🔑🔑🔑", "ok"],
    ["🔑🔑🔑", { reasons: ["length"], message: "Password should be at least 6 characters." }],
    ["ééé", { reasons: ["length"], message: "Password should be at least 6 characters." }],
    ["éééééé", "ok"],
    // A decomposed é is two code points.
    ["e\u0301e\u0301e\u0301", "ok"],
    ["пароль", "ok"],
    ["密码密码密码", "ok"],
    ["      ", "ok"]
  ])("default policy: %j → %j", (password, expected) => {
    expect(outcome(defaults, password)).toEqual(expected)
  })

  it.each([
    ["Passw0rdX", "ok"],
    ["aB3aaaaa", "ok"],
    ["password1", { reasons: ["characters"], message: charactersMessage }],
    ["PASSWORD1", { reasons: ["characters"], message: charactersMessage }],
    ["Password", { reasons: ["characters"], message: charactersMessage }],
    ["aB3", { reasons: ["length"], message: "Password should be at least 8 characters." }],
    [
      "abc",
      {
        reasons: ["length", "characters"],
        message: `Password should be at least 8 characters. ${charactersMessage}`
      }
    ],
    ["ÀBCDÉFG1", { reasons: ["characters"], message: charactersMessage }]
  ])("lower:upper:digit, 8: %j → %j", (password, expected) => {
    expect(outcome(lowerUpperDigit, password)).toEqual(expected)
  })

  it.each([
    ["a literal colon set", "abc\\::123", "abc:def1", "ok"],
    ["the colon alone satisfies its set", "\\::1", "::::::1", "ok"],
    ["a missing colon", "\\::1", "abcdef1", "characters"],
    ["a set of emoji", "🔑🗝:0123456789", "secret🗝1", "ok"],
    ["only half a surrogate pair does not count", "🔑:0123456789", "secret\uD83D1", "characters"],
    ["accented letters", "äöü:0123456789", "schön123", "ok"]
  ])("%s", (_, raw, password, expected) => {
    const policy = PasswordPolicy.make({ requiredCharacters: raw })
    const result = outcome(policy, password)
    expect(result === "ok" ? "ok" : result.reasons.join(",")).toBe(expected)
  })

  it("accepts every password of enough code points when no set is required", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 6, max: 40 }),
        fc.string({ unit: "binary", minLength: 0, maxLength: 60 }),
        (min, password) => {
          const policy = PasswordPolicy.make({ minLength: min })
          const long = Array.from(password).length >= min
          expect(Either.isRight(PasswordPolicy.check(policy, password))).toBe(long)
        }
      )
    )
  })

  it("accepts a password exactly when it has a character of every set", () => {
    const set = fc
      .string({ minLength: 1, maxLength: 5, unit: "grapheme-ascii" })
      .filter((s) => !s.includes(":"))
    fc.assert(
      fc.property(
        fc.array(set, { minLength: 1, maxLength: 4 }),
        fc.string({ minLength: 6, maxLength: 20 }),
        (sets, password) => {
          const policy = PasswordPolicy.make({ requiredCharacters: sets })
          const expected = sets.every((s) => Array.from(s).some((char) => password.includes(char)))
          expect(Either.isRight(PasswordPolicy.check(policy, password))).toBe(expected)
          // Adding one character of each set always satisfies the policy.
          const fixed = password + sets.map((s) => Array.from(s)[0] ?? "").join("")
          expect(Either.isRight(PasswordPolicy.check(policy, fixed))).toBe(true)
        }
      )
    )
  })
})
