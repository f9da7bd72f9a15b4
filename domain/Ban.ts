import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Time from "./Time.js"

/**
 * What an admin asked for in `ban_duration`. A zero duration is an unban, as in Supabase Auth,
 * where `user.Ban(0)` clears `banned_until`: so `none`, `0` and `0h0m` all mean the same thing.
 */
export type BanRequest = Data.TaggedEnum<{
  Unban: {}
  BanFor: { readonly duration: Duration.Duration }
}>
export const BanRequest = Data.taggedEnum<BanRequest>()

/**
 * `ban_duration` was not `none` nor an unsigned Go duration. `reason` is the stable code;
 * `message` is Go's `time.ParseDuration` error, which Supabase Auth puts in its answer after its own words.
 */
export class InvalidBanDuration extends Schema.TaggedError<InvalidBanDuration>()("InvalidBanDuration", {
  input: Schema.String,
  reason: Schema.Literal("empty", "signed", "syntax", "missing_unit", "unknown_unit", "overflow"),
  message: Schema.String
}) {}

const nanosPerUnit: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["µs", 1_000n], // U+00B5 MICRO SIGN
  ["μs", 1_000n], // U+03BC GREEK SMALL LETTER MU: Go accepts both spellings
  ["ms", 1_000_000n],
  ["s", 1_000_000_000n],
  ["m", 60_000_000_000n],
  ["h", 3_600_000_000_000n]
])

// Go keeps a duration in an int64 of nanoseconds; anything longer is an error there, so here too.
const maxNanos = 2n ** 63n - 1n

// One `<number><unit>` at the start of the rest: Go's grammar, where a number is digits with an
// optional fraction (`1`, `1.5`, `.5`, `1.`) and a unit is everything up to the next digit or dot.
const component = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/u

const invalid = (input: string, reason: InvalidBanDuration["reason"], detail: string) =>
  Either.left(new InvalidBanDuration({ input, reason, message: `time: ${detail}` }))

const quoted = (value: string) => JSON.stringify(value)

/**
 * Parses the admin API's `ban_duration`: `none`, or a Go `time.ParseDuration` string without a
 * sign (`24h`, `1h30m`, `1.5h`, `300ms`, `0`). Go also accepts `-1h`, which GoTrue turns into a
 * ban that ended in the past; a sign is refused here because it can only be a mistake.
 */
export const parseBanDuration = (input: string): Either.Either<BanRequest, InvalidBanDuration> => {
  if (input === "none") return Either.right(BanRequest.Unban())
  if (input === "") return invalid(input, "empty", `invalid duration ${quoted(input)}`)
  if (input.startsWith("-") || input.startsWith("+")) {
    return invalid(input, "signed", `invalid duration ${quoted(input)}`)
  }
  if (input === "0") return Either.right(BanRequest.Unban())

  let rest = input
  let total = 0n
  while (rest !== "") {
    const match = component.exec(rest)
    const whole = match?.[1] ?? ""
    const fraction = match?.[2]
    const unit = match?.[3] ?? ""
    if (match === null || (whole === "" && (fraction === undefined || fraction === ""))) {
      return invalid(input, "syntax", `invalid duration ${quoted(input)}`)
    }
    if (unit === "") return invalid(input, "missing_unit", `missing unit in duration ${quoted(input)}`)
    const perUnit = nanosPerUnit.get(unit)
    if (perUnit === undefined) {
      return invalid(input, "unknown_unit", `unknown unit ${quoted(unit)} in duration ${quoted(input)}`)
    }
    // Exact rational arithmetic; Go computes the fraction in float64, which can differ by 1ns.
    const fractionDigits = fraction ?? ""
    const fractionNanos =
      fractionDigits === "" ? 0n : (BigInt(fractionDigits) * perUnit) / 10n ** BigInt(fractionDigits.length)
    total += BigInt(whole === "" ? "0" : whole) * perUnit + fractionNanos
    if (total > maxNanos) return invalid(input, "overflow", `invalid duration ${quoted(input)}`)
    rest = rest.slice(match[0].length)
  }
  return Either.right(
    total === 0n ? BanRequest.Unban() : BanRequest.BanFor({ duration: Duration.nanos(total) })
  )
}

/** When a ban requested at `now` ends (none for an unban); a `Date` drops sub-millisecond parts. */
export const bannedUntil = (request: BanRequest, now: Date): Option.Option<Date> =>
  BanRequest.$match(request, {
    Unban: () => Option.none(),
    BanFor: ({ duration }) => Option.some(Time.plus(now, duration))
  })

/** A user is banned while `now` is strictly before `banned_until`; at that instant the ban is over. */
export const isBanned = (until: Option.Option<Date>, now: Date): boolean =>
  Option.match(until, { onNone: () => false, onSome: (end) => now.getTime() < end.getTime() })
