import * as Context from "effect/Context"
import type * as Either from "effect/Either"
import type { InvalidPhone, Phone } from "../../../domain/User.js"

/**
 * Reads a phone number as a client typed it. Supabase Auth takes every number as international,
 * with or without its `+`, and has no default country; the numbering plans of every country
 * decide whether the digits can be a number there, so they live behind this port rather than in
 * the domain.
 */
export class PhoneNumbers extends Context.Tag("latchkey/auth/PhoneNumbers")<
  PhoneNumbers,
  {
    /** `input` in E.164, or refused: not a number of the length its country code allows. */
    readonly parse: (input: string) => Either.Either<Phone, InvalidPhone>
  }
>() {}
