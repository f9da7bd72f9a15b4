import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/** `PASSWORD_MIN_LENGTH` when unset; Supabase Auth also raises any smaller setting to it. */
export const defaultMinLength = 6

/**
 * Splits `PASSWORD_REQUIRED_CHARACTERS` into its character sets: sets are separated by `:`,
 * `\:` is a literal colon inside a set, and empty sets are dropped. Read left to right, so
 * `a\:b\:c` is the one set `a:b:c`; Supabase Auth's decoder joins only one escaped colon per
 * set and reads that value as `a:b\` and `c`. Every example in its own tests agrees with this.
 */
export const parseRequiredCharacters = (raw: string): ReadonlyArray<string> => {
  const sets: Array<string> = []
  let current = ""
  for (let index = 0; index < raw.length; index++) {
    const char = raw[index]
    if (char === "\\" && raw[index + 1] === ":") {
      current += ":"
      index++
    } else if (char === ":") {
      sets.push(current)
      current = ""
    } else {
      current += char
    }
  }
  sets.push(current)
  return sets.filter((set) => set !== "")
}

/** What a password must satisfy: a minimum length and one character from each required set. */
export class PasswordPolicy extends Data.Class<{
  readonly minLength: number
  readonly requiredCharacters: ReadonlyArray<string>
}> {}

/**
 * Builds a policy from configuration. A missing, fractional or too small `minLength` becomes
 * at least {@link defaultMinLength}, as in Supabase Auth; `requiredCharacters` may be the raw
 * `PASSWORD_REQUIRED_CHARACTERS` value or sets already split.
 */
export const make = (options: {
  readonly minLength?: number
  readonly requiredCharacters?: string | ReadonlyArray<string>
}): PasswordPolicy => {
  const requested = options.minLength ?? defaultMinLength
  const sets = options.requiredCharacters ?? []
  return new PasswordPolicy({
    minLength: Number.isFinite(requested)
      ? Math.max(defaultMinLength, Math.ceil(requested))
      : defaultMinLength,
    requiredCharacters:
      typeof sets === "string" ? parseRequiredCharacters(sets) : sets.filter((set) => set !== "")
  })
}

/** Why a password was refused, in Supabase Auth's order: `length`, then `characters`. */
export const WeakPasswordReason = Schema.Literal("length", "characters")
export type WeakPasswordReason = typeof WeakPasswordReason.Type

/**
 * The password does not meet the policy. Supabase Auth answers `weak_password` with these
 * `reasons` and this `message`, so the wire layer can pass both through unchanged.
 */
export class WeakPassword extends Schema.TaggedError<WeakPassword>()("WeakPassword", {
  reasons: Schema.Array(WeakPasswordReason),
  message: Schema.String
}) {}

/**
 * Checks `password` against `policy`. Length counts Unicode code points, so `🔑` is one
 * character as a user sees it (Supabase Auth counts UTF-8 bytes, which lets 3 accented letters
 * pass a 6-character minimum).
 */
export const check = (policy: PasswordPolicy, password: string): Either.Either<void, WeakPassword> => {
  const characters = new Set(password)
  const reasons: Array<WeakPasswordReason> = []
  const messages: Array<string> = []
  if (Array.from(password).length < policy.minLength) {
    reasons.push("length")
    messages.push(`Password should be at least ${policy.minLength} characters.`)
  }
  const missesASet = policy.requiredCharacters.some(
    (set) => set !== "" && !Array.from(set).some((char) => characters.has(char))
  )
  if (missesASet) {
    reasons.push("characters")
    messages.push(
      `Password should contain at least one character of each: ${policy.requiredCharacters.join(", ")}.`
    )
  }
  return reasons.length === 0
    ? Either.void
    : Either.left(new WeakPassword({ reasons, message: messages.join(" ") }))
}
