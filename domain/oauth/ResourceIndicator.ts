import * as Either from "effect/Either"
import * as Option from "effect/Option"

/**
 * RFC 8707 resource indicators: the resource server a token is for, its audience. One per grant
 * here: a request naming several is refused with `invalid_target`, as §2 lets a server that
 * takes one at a time refuse them.
 */

/** RFC 8707 §2: an absolute URI without a fragment. */
export const isResourceIndicator = (value: string): boolean => {
  if (value.includes("#")) return false
  try {
    new URL(value)
    return true
  } catch {
    return false
  }
}

/** What a request naming something else as its resource is told. */
export const malformed = "resource must be an absolute URI without a fragment"

/**
 * The audience of the tokens a code's exchange issues, given the resource the authorization
 * request named (`granted`) and the one the token request names (RFC 8707 §2.2): the granted one
 * again, or one the authorization request left open, which then restricts the tokens to it.
 * Another one is not within the grant: the description of an `invalid_target`.
 */
export const atExchange = (
  granted: Option.Option<string>,
  requested: Option.Option<string>
): Either.Either<Option.Option<string>, string> => {
  if (Option.isNone(requested)) return Either.right(granted)
  if (!isResourceIndicator(requested.value)) return Either.left(malformed)
  return Option.match(granted, {
    onNone: () => Either.right(requested),
    onSome: (resource) =>
      resource === requested.value ? Either.right(granted) : Either.left("resource is not the one granted")
  })
}

/**
 * A refresh's resource against its grant's: none, or the grant's own. The rotation carries the
 * grant's audience to the new tokens, so a refresh cannot restrict a grant that named none: that
 * is refused too, rather than a token issued for more than was asked.
 */
export const atRefresh = (
  granted: Option.Option<string>,
  requested: Option.Option<string>
): Either.Either<void, string> => {
  if (Option.isNone(requested) || Option.contains(granted, requested.value)) return Either.void
  if (!isResourceIndicator(requested.value)) return Either.left(malformed)
  return Either.left(
    Option.isNone(granted) ? "the grant names no resource" : "resource is not the one granted"
  )
}
