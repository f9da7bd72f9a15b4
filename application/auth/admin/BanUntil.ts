import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Option from "effect/Option"
import * as Ban from "../../../domain/Ban.js"
import * as AuthError from "../AuthError.js"

/** `ban_duration` as the admin API takes it: when the ban ends (none: no ban). */
export const parse = (
  input: string,
  now: Date
): Effect.Effect<Option.Option<Date>, AuthError.BanDurationInvalid> =>
  Either.match(Ban.parseBanDuration(input), {
    onLeft: (invalid) => Effect.fail(new AuthError.BanDurationInvalid({ message: invalid.message })),
    onRight: (request) => Effect.succeed(Ban.bannedUntil(request, now))
  })
