import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as Ban from "../../domain/Ban.js"

const nanosOf = (input: string): bigint | "unban" | "invalid" =>
  Either.match(Ban.parseBanDuration(input), {
    onLeft: () => "invalid" as const,
    onRight: (request) =>
      Ban.BanRequest.$match(request, {
        Unban: () => "unban" as const,
        BanFor: ({ duration }) => Duration.unsafeToNanos(duration)
      })
  })

const reasonOf = (input: string) =>
  Either.match(Ban.parseBanDuration(input), { onLeft: (error) => error.reason, onRight: () => undefined })

const second = 1_000_000_000n
const minute = 60n * second
const hour = 60n * minute

describe("Ban.parseBanDuration", () => {
  it.each([
    ["1h", hour],
    ["24h", 24n * hour],
    ["1h30m", hour + 30n * minute],
    ["2h45m10s", 2n * hour + 45n * minute + 10n * second],
    ["300ms", 300_000_000n],
    ["1.5h", hour + 30n * minute],
    [".5h", 30n * minute],
    ["1.h", hour],
    ["1.000000001s", second + 1n],
    ["0.1ns", "unban"],
    ["1ns", 1n],
    ["1us", 1_000n],
    ["1µs", 1_000n],
    ["1μs", 1_000n],
    ["1ms", 1_000_000n],
    ["1s", second],
    ["1m", minute],
    ["90m", 90n * minute],
    ["1m1m", 2n * minute],
    ["1s1h", hour + second],
    ["0001h", hour],
    ["876000h", 876_000n * hour],
    ["9223372036854775807ns", 9_223_372_036_854_775_807n],
    ["2562047h47m16.854775807s", 9_223_372_036_854_775_807n],
    ["none", "unban"],
    ["0", "unban"],
    ["0s", "unban"],
    ["0h0m0s", "unban"],
    ["0.0h", "unban"]
  ] as const)("%s → %s", (input, expected) => {
    expect(nanosOf(input)).toBe(expected)
  })

  it.each([
    ["", "empty"],
    ["-1h", "signed"],
    ["+1h", "signed"],
    ["-0", "signed"],
    ["h", "syntax"],
    [".", "syntax"],
    [".h", "syntax"],
    ["abc", "syntax"],
    [" 1h", "syntax"],
    ["1h ", "unknown_unit"],
    ["1 h", "unknown_unit"],
    ["1h 30m", "unknown_unit"],
    ["1d", "unknown_unit"],
    ["1w", "unknown_unit"],
    ["1H", "unknown_unit"],
    ["1sec", "unknown_unit"],
    ["1e3s", "unknown_unit"],
    ["1", "missing_unit"],
    ["00", "missing_unit"],
    ["1h1", "missing_unit"],
    ["1.5.5h", "missing_unit"],
    ["None", "syntax"],
    ["NONE", "syntax"],
    ["9223372036854775808ns", "overflow"],
    ["2562047h47m16.854775808s", "overflow"],
    ["2562048h", "overflow"],
    ["99999999999999999999999h", "overflow"],
    ["1h-1m", "unknown_unit"]
  ] as const)("%j is refused (%s)", (input, reason) => {
    expect(reasonOf(input)).toBe(reason)
  })

  it("words errors as Supabase Auth does", () => {
    const messageOf = (input: string) =>
      Either.match(Ban.parseBanDuration(input), {
        onLeft: (error) => error.message,
        onRight: () => undefined
      })
    expect(messageOf("1d")).toBe('time: unknown unit "d" in duration "1d"')
    expect(messageOf("1")).toBe('time: missing unit in duration "1"')
    expect(messageOf("-1h")).toBe('time: invalid duration "-1h"')
  })

  it("returns a typed error that carries the input", () => {
    const result = Ban.parseBanDuration("1 h")
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      expect(result.left._tag).toBe("InvalidBanDuration")
      expect(result.left.input).toBe("1 h")
      expect(result.left).toBeInstanceOf(Ban.InvalidBanDuration)
    }
  })

  const units = [
    ["ns", 1n],
    ["us", 1_000n],
    ["µs", 1_000n],
    ["ms", 1_000_000n],
    ["s", second],
    ["m", minute],
    ["h", hour]
  ] as const
  const wholeComponent = fc.tuple(fc.bigInt({ min: 0n, max: 100_000n }), fc.constantFrom(...units))

  it("parses any composition of whole components to the sum of its parts", () => {
    fc.assert(
      fc.property(fc.array(wholeComponent, { minLength: 1, maxLength: 8 }), (components) => {
        const input = components.map(([amount, [unit]]) => `${amount}${unit}`).join("")
        const expected = components.reduce((sum, [amount, [, nanos]]) => sum + amount * nanos, 0n)
        expect(nanosOf(input)).toBe(expected === 0n ? "unban" : expected)
      })
    )
  })

  const decimalComponent = fc
    .tuple(
      fc.stringMatching(/^[0-9]{0,5}$/),
      fc.option(fc.stringMatching(/^[0-9]{0,12}$/), { nil: undefined }),
      fc.constantFrom(...units)
    )
    .filter(([whole, fraction]) => whole !== "" || (fraction !== undefined && fraction !== ""))
    .map(([whole, fraction, [unit]]) => `${whole}${fraction === undefined ? "" : `.${fraction}`}${unit}`)

  it("parses a composition of decimal components to the sum of each parsed alone", () => {
    fc.assert(
      fc.property(fc.array(decimalComponent, { minLength: 1, maxLength: 6 }), (components) => {
        const sum = components.reduce((total, component) => {
          const nanos = nanosOf(component)
          return typeof nanos === "bigint" ? total + nanos : total
        }, 0n)
        expect(nanosOf(components.join(""))).toBe(sum === 0n ? "unban" : sum)
      })
    )
  })

  it("never accepts a signed duration", () => {
    fc.assert(
      fc.property(fc.constantFrom("-", "+"), decimalComponent, (sign, component) => {
        expect(reasonOf(`${sign}${component}`)).toBe("signed")
      })
    )
  })
})

describe("Ban.bannedUntil", () => {
  const now = new Date("2025-01-01T00:00:00.000Z")

  it.each([
    ["24h", "2025-01-02T00:00:00.000Z"],
    ["1h30m", "2025-01-01T01:30:00.000Z"],
    ["1.5s", "2025-01-01T00:00:01.500Z"],
    ["1500us", "2025-01-01T00:00:00.001Z"],
    ["876000h", "2124-12-08T00:00:00.000Z"],
    ["2562047h47m16.854775807s", "2317-04-12T23:47:16.854Z"]
  ])("a ban of %s ends at %s", (input, end) => {
    const request = Either.getOrThrow(Ban.parseBanDuration(input))
    expect(Option.map(Ban.bannedUntil(request, now), (date) => date.toISOString())).toEqual(Option.some(end))
  })

  it.each(["none", "0", "0s"])("%s clears the ban", (input) => {
    const request = Either.getOrThrow(Ban.parseBanDuration(input))
    expect(Ban.bannedUntil(request, now)).toEqual(Option.none())
  })
})

describe("Ban.isBanned", () => {
  const until = new Date("2025-01-01T12:00:00.000Z")
  it.each([
    ["long before", "2024-06-01T00:00:00.000Z", true],
    ["1ms before", "2025-01-01T11:59:59.999Z", true],
    ["at the instant", "2025-01-01T12:00:00.000Z", false],
    ["after", "2025-01-01T12:00:00.001Z", false]
  ])("%s the end of the ban → %s", (_, now, expected) => {
    expect(Ban.isBanned(Option.some(until), new Date(now))).toBe(expected)
  })

  it("is never banned without banned_until", () => {
    expect(Ban.isBanned(Option.none(), new Date("2025-01-01T00:00:00.000Z"))).toBe(false)
  })
})
