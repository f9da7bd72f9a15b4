import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { Email, type Phone, parsePhone } from "../../domain/User.js"
import * as AuthError from "./AuthError.js"

const decodeEmail = Schema.decodeUnknownEither(Email)

/** An email address as a client typed it, checked and lower-cased as Supabase Auth does. */
export const email = (
  input: string
): Effect.Effect<Email, AuthError.InvalidInput | AuthError.MalformedEmail> =>
  Either.match(decodeEmail(input), {
    onLeft: () =>
      Effect.fail(
        input.trim().length > 255
          ? new AuthError.InvalidInput({ message: "An email address is too long" })
          : new AuthError.MalformedEmail()
      ),
    onRight: Effect.succeed
  })

/** A phone number as a client typed it, read as Supabase Auth reads it (`User.parsePhone`). */
export const phone = (input: string): Effect.Effect<Phone, AuthError.MalformedPhone> =>
  Either.match(parsePhone(input), {
    onLeft: () => Effect.fail(new AuthError.MalformedPhone()),
    onRight: Effect.succeed
  })
