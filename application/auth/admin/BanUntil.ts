import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Option from "effect/Option"
import * as Ban from "../../../domain/Ban.js"
import * as AuthError from "../AuthError.js"

/** `ban_duration` as the admin API takes it: when the ban ends (none: no ban). */
export const parse = (input: string, now: Date): Effect.Effect<Option.Option<Date>, AuthError.InvalidInput> =>
  Either.match(Ban.parseBanDuration(input), {
    // Supabase Auth prefixes Go's own error, which the domain words as Go does.
    onLeft: (invalid) =>
      Effect.fail(
        new AuthError.InvalidInput({ message: `invalid format for ban duration: time: ${invalid.message}` })
      ),
    onRight: (request) => Effect.succeed(Ban.bannedUntil(request, now))
  })
