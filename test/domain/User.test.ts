import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as User from "../../domain/User.js"

const decodeEmail = Schema.decodeUnknownEither(User.Email)
const decodePhone = Schema.decodeUnknownEither(User.Phone)

describe("User.Email", () => {
  it.each([
    ["user@example.com", "user@example.com"],
    ["  User@Example.COM \n", "user@example.com"],
    ["first.last+tag@sub.example.co.uk", "first.last+tag@sub.example.co.uk"],
    ["o'brien@example.com", "o'brien@example.com"],
    ["user@localhost", "user@localhost"],
    ["a@b", "a@b"],
    [`${"a".repeat(243)}@example.com`, `${"a".repeat(243)}@example.com`]
  ])("%j → %j", (input, expected) => {
    expect(decodeEmail(input)).toEqual(Either.right(expected))
  })

  it.each([
    ["empty", ""],
    ["blank", "   "],
    ["no at", "user.example.com"],
    ["two ats", "a@b@example.com"],
    ["no local part", "@example.com"],
    ["no domain", "user@"],
    ["space inside", "us er@example.com"],
    ["domain label starting with a dash", "user@-example.com"],
    ["domain label ending with a dash", "user@example-.com"],
    ["empty domain label", "user@example..com"],
    ["trailing dot", "user@example.com."],
    ["domain label of 64 characters", `user@${"a".repeat(64)}.com`],
    ["non-ASCII local part", "jürgen@example.com"],
    ["IDN domain not in punycode", "user@exämple.com"],
    ["Kelvin sign that lower-cases to k", "\u212Aate@example.com"],
    ["256 characters", `${"a".repeat(244)}@example.com`],
    ["not a string", 42]
  ])("refuses %s", (_, input) => {
    expect(Either.isLeft(decodeEmail(input))).toBe(true)
  })

  it("encodes the stored form unchanged", () => {
    const email = Either.getOrThrow(decodeEmail("user@example.com"))
    expect(Schema.encodeSync(User.Email)(email)).toBe("user@example.com")
  })
})

describe("User.Phone", () => {
  it.each(["12", "14155552671", "441632960961", "123456789012345"])("accepts %s", (input) => {
    expect(decodePhone(input)).toEqual(Either.right(input))
  })

  it.each([
    ["a plus", "+14155552671"],
    ["leading zero", "04155552671"],
    ["16 digits", "1234567890123456"],
    ["one digit", "1"],
    ["spaces", "1 415 555 2671"],
    ["letters", "1415555abcd"],
    ["Arabic-Indic digits", "١٤١٥٥٥٥٢٦٧١"],
    ["empty", ""]
  ])("refuses %s", (_, input) => {
    expect(Either.isLeft(decodePhone(input))).toBe(true)
  })
})

describe("User.parsePhone", () => {
  it.each([
    ["digits alone", "14155552671", "14155552671"],
    ["a leading plus", "+14155552671", "14155552671"],
    ["spaces anywhere", "+1 415 555 2671", "14155552671"],
    ["a number no numbering plan has", "4152127777", "4152127777"],
    ["the shortest", "+12", "12"],
    ["the longest", "123456789012345", "123456789012345"]
  ])("reads %s as Supabase Auth does", (_, input, stored) => {
    expect(User.parsePhone(input)).toEqual(Either.right(stored))
  })

  it.each([
    ["a leading zero", "+04155552671"],
    ["16 digits", "+1234567890123456"],
    ["one digit", "+1"],
    ["a plus alone", "+"],
    ["two pluses", "++14155552671"],
    ["a space before the plus", " +14155552671"],
    ["dashes", "+1-415-555-2671"],
    ["brackets", "+1 (415) 5552671"],
    ["a tab", "+1\t4155552671"],
    ["letters", "+1415555abcd"],
    ["Arabic-Indic digits", "+١٤١٥٥٥٥٢٦٧١"],
    ["empty", ""]
  ])("refuses %s in Supabase Auth's words", (_, input) => {
    expect(User.parsePhone(input)).toEqual(Either.left(User.invalidPhone(input)))
  })
})

describe("User.invalidPhone", () => {
  it("refuses in Supabase Auth's words, keeping what was typed", () => {
    const error = User.invalidPhone("+1 555 0100")
    expect(error._tag).toBe("InvalidPhone")
    expect(error.input).toBe("+1 555 0100")
    expect(error.message).toBe("Invalid phone number format (E.164 required)")
  })
})

const row = {
  id: "8b0f3c9e-7a52-4f3b-9d7e-2a1c5e4b6d70",
  aud: "authenticated",
  role: "authenticated",
  email: "user@example.com",
  phone: null,
  emailConfirmedAt: "2025-01-01T00:00:00.000Z",
  phoneConfirmedAt: null,
  confirmationSentAt: null,
  invitedAt: null,
  lastSignInAt: "2025-01-02T03:04:05.678Z",
  appMetadata: { provider: "email", providers: ["email"] },
  userMetadata: {},
  isAnonymous: false,
  bannedUntil: null,
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-02T03:04:05.678Z",
  emailChangeConfirmStatus: 0
}

const decodeUser = Schema.decodeUnknownSync(User.User)

describe("User.User", () => {
  it("round-trips a JSON row", () => {
    const user = decodeUser(row)
    expect(user.email).toEqual(Option.some("user@example.com"))
    expect(user.phone).toEqual(Option.none())
    expect(user.lastSignInAt).toEqual(Option.some(new Date("2025-01-02T03:04:05.678Z")))
    expect(Schema.encodeSync(User.User)(user)).toEqual(row)
    expect(JSON.parse(JSON.stringify(Schema.encodeSync(User.User)(user)))).toEqual(row)
  })

  it("decodes a database row whose timestamps are Date objects", () => {
    const user = decodeUser({
      ...row,
      createdAt: new Date("2025-01-01T00:00:00.000Z"),
      bannedUntil: new Date("2030-01-01T00:00:00.000Z")
    })
    expect(user.createdAt.toISOString()).toBe("2025-01-01T00:00:00.000Z")
    expect(user.bannedUntil).toEqual(Option.some(new Date("2030-01-01T00:00:00.000Z")))
    expect(Schema.encodeSync(User.User)(user).bannedUntil).toBe("2030-01-01T00:00:00.000Z")
  })

  it("reads omitted optional keys as none, as Supabase Auth omits empty timestamps", () => {
    const { emailConfirmedAt: _e, invitedAt: _i, bannedUntil: _b, ...sparse } = row
    const user = decodeUser(sparse)
    expect(user.emailConfirmedAt).toEqual(Option.none())
    expect(user.bannedUntil).toEqual(Option.none())
  })

  it("normalises the email and keeps a phone's digits", () => {
    const user = decodeUser({ ...row, email: " USER@Example.com ", phone: "14155552671" })
    expect(user.email).toEqual(Option.some("user@example.com"))
    expect(user.phone).toEqual(Option.some("14155552671"))
  })

  it.each([
    ["a non-UUID id", { id: "42" }],
    ["an invalid email", { email: "not-an-email" }],
    ["a phone with its +", { phone: "+14155552671" }],
    ["an invalid timestamp", { createdAt: "yesterday" }],
    ["an invalid Date", { createdAt: new Date(Number.NaN) }],
    ["metadata that is not an object", { userMetadata: "x" }],
    ["a missing createdAt", { createdAt: undefined }],
    ["a non-boolean isAnonymous", { isAnonymous: "false" }]
  ])("refuses %s", (_, patch) => {
    expect(Either.isLeft(Schema.decodeUnknownEither(User.User)({ ...row, ...patch }))).toBe(true)
  })
})

describe("User.canSignIn", () => {
  const now = new Date("2025-06-01T00:00:00.000Z")
  const withBan = (bannedUntil: string | null) => decodeUser({ ...row, bannedUntil })

  it.each([
    ["never banned", null, true],
    ["ban ended yesterday", "2025-05-31T00:00:00.000Z", true],
    ["ban ends right now", "2025-06-01T00:00:00.000Z", true],
    ["ban ends in 1ms", "2025-06-01T00:00:00.001Z", false],
    ["banned for years", "2100-01-01T00:00:00.000Z", false]
  ])("%s → %s", (_, bannedUntil, allowed) => {
    expect(Either.isRight(User.canSignIn(withBan(bannedUntil), now))).toBe(allowed)
  })

  it("says who is banned and until when", () => {
    const result = User.canSignIn(withBan("2100-01-01T00:00:00.000Z"), now)
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      expect(result.left).toBeInstanceOf(User.UserBanned)
      expect(result.left._tag).toBe("UserBanned")
      expect(result.left.userId).toBe(row.id)
      expect(result.left.bannedUntil.toISOString()).toBe("2100-01-01T00:00:00.000Z")
      expect(result.left.message).toBe("User is banned")
    }
  })
})
