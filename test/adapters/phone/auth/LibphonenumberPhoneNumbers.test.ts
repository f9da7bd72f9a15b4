import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as LibphonenumberPhoneNumbers from "../../../../adapters/phone/auth/LibphonenumberPhoneNumbers.js"
import { PhoneNumbers } from "../../../../application/auth/ports/PhoneNumbers.js"

const { parse } = LibphonenumberPhoneNumbers

const expectRefused = (input: string) => {
  const result = parse(input)
  expect(Either.isLeft(result)).toBe(true)
  if (Either.isLeft(result)) {
    expect(result.left._tag).toBe("InvalidPhone")
    expect(result.left.input).toBe(input)
    expect(result.left.message).toBe("Invalid phone number format (E.164 required)")
  }
}

describe("LibphonenumberPhoneNumbers.parse", () => {
  it.each([
    ["+14155552671", "+14155552671"],
    ["14155552671", "+14155552671"],
    ["+1 415 555 2671", "+14155552671"],
    ["1 415 555 2671", "+14155552671"],
    ["+1-415-555-2671", "+14155552671"],
    [" +44 1632 960961 ", "+441632960961"],
    ["+1\t415\t5552671", "+14155552671"]
  ])("%j → %s, as before", (input, expected) => {
    expect(parse(input)).toEqual(Either.right(expected))
  })

  it.each([
    ["+1 (415) 555-2671", "+14155552671"],
    ["+1.415.555.2671", "+14155552671"],
    ["+1 415/555/2671", "+14155552671"],
    ["+1\u00a0415\u00a0555\u00a02671", "+14155552671"],
    ["+33 6 12 34 56 78", "+33612345678"],
    ["+٤٤٢٠٧٩٤٦٠٩٥٨", "+442079460958"]
  ])("%j → %s: the punctuation and digits people write numbers with", (input, expected) => {
    expect(parse(input)).toEqual(Either.right(expected))
  })

  it.each([
    ["+44 (0)20 7946 0958", "+442079460958"],
    ["+44 020 7946 0958", "+442079460958"],
    ["+33 0612345678", "+33612345678"],
    ["+39 06 1234 5678", "+390612345678"]
  ])(
    "%j → %s: a national prefix after the country code goes where the country's plan drops it",
    (input, expected) => {
      expect(parse(input)).toEqual(Either.right(expected))
    }
  )

  // Possible, not valid: fictional and unallocated ranges of the right length are numbers too.
  it.each([
    ["+15555550100", "+15555550100"],
    ["15550001234", "+15550001234"],
    ["+44 7700 900123", "+447700900123"],
    ["+800 1234 5678", "+80012345678"]
  ])("%j → %s: of a possible length, allocated or not", (input, expected) => {
    expect(parse(input)).toEqual(Either.right(expected))
  })

  it.each([
    ["empty", ""],
    ["plus only", "+"],
    ["one digit", "1"],
    ["leading zero: a national number, and no country to read it in", "04155552671"],
    ["00 prefix: the international prefix of some countries, not all", "0014155552671"],
    ["00 prefix after a plus", "+0044 20 7946 0958"],
    ["16 digits", "1234567890123456"],
    ["letters", "+1-800-FLOWERS"],
    ["two plus signs", "++14155552671"],
    ["plus in the middle", "1+4155552671"],
    ["extension", "+14155552671x12"],
    ["extension, spelt out", "+1 415 555 2671 ext. 12"],
    ["a number inside a sentence", "call +1 415 555 2671"]
  ])("refuses %s", (_, input) => {
    expectRefused(input)
  })

  it.each([
    ["a country code alone (Supabase Auth accepts it)", "12"],
    ["15 digits, too many after +1 (Supabase Auth accepts it)", "123456789012345"],
    ["9 digits after +1 (Supabase Auth accepts it)", "+1234567890"],
    ["7 digits after +1", "+1 555 0100"],
    ["11 digits after +1", "+1 415 555 26710"],
    ["8 digits after +33", "+33 6 12 34 56 7"],
    ["10 digits after +33", "+33 6 12 34 56 789"],
    ["an unassigned country code", "+999 1234 5678"]
  ])("refuses %s: impossible for its country", (_, input) => {
    expectRefused(input)
  })

  it.effect("is the PhoneNumbers port of its layer", () =>
    Effect.gen(function* () {
      const numbers = yield* PhoneNumbers
      expect(numbers.parse("+1 415 555 2671")).toEqual(Either.right("+14155552671"))
    }).pipe(Effect.provide(LibphonenumberPhoneNumbers.layer))
  )
})
