import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { parsePhoneNumberFromString } from "libphonenumber-js/min"
import { PhoneNumbers } from "../../../application/auth/ports/PhoneNumbers.js"
import { type InvalidPhone, invalidPhone, Phone } from "../../../domain/User.js"

/**
 * libphonenumber-js with its smallest metadata (`min`, about 80 kB): every country's calling
 * code, possible lengths and national prefix, which is all that parsing and `isPossible()` read.
 * `max` adds the digit patterns of each range that only `isValid()` and `getType()` use; its
 * `isPossible()` gives the same answers.
 *
 * Possible, not valid: a number of the right length for its country is accepted even in a range
 * that is not allocated, such as the fictional `+1 555 01xx` numbers and Ofcom's drama ranges,
 * which applications and their tests use and Supabase Auth accepts. A validity check would also
 * refuse newly allocated ranges until the metadata caught up.
 */

// The library's E.164 is a plain string: the domain's shape check brands it, and would refuse a
// number the metadata allows but E.164 does not (more than 15 digits).
const isPhone = Schema.is(Phone)

/**
 * `input` in E.164. Whitespace of every kind becomes a space, which the library skips like the
 * dashes, dots, slashes and brackets people write numbers with; the whole input must be the
 * number (`extract: false`: no number picked out of a sentence). A missing `+` is added, since
 * Supabase Auth reads every number as international: there is no country to read a national
 * number in, so `0…` and `00…` are refused rather than guessed at. An extension is refused: a
 * text cannot reach one.
 */
export const parse = (input: string): Either.Either<Phone, InvalidPhone> => {
  const spaced = input.replace(/\s+/g, " ").trim()
  const international = spaced.startsWith("+") ? spaced : `+${spaced}`
  const parsed = parsePhoneNumberFromString(international, { extract: false })
  return parsed !== undefined && parsed.ext === undefined && parsed.isPossible() && isPhone(parsed.number)
    ? Either.right(parsed.number)
    : Either.left(invalidPhone(input))
}

export const layer: Layer.Layer<PhoneNumbers> = Layer.succeed(PhoneNumbers, { parse })
