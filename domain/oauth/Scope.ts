import * as Option from "effect/Option"

/**
 * RFC 6749 §3.3: space-delimited tokens of %x21 / %x23-5B / %x5D-7E (printable ASCII but
 * space, `"` and `\`).
 */
const token = /^[\x21\x23-\x5b\x5d-\x7e]+$/

export const parse = (scope: string): ReadonlyArray<string> => scope.split(" ").filter((part) => part !== "")

/** The scopes a request names, none when it names no scope. */
export const requested = (scope: Option.Option<string>): ReadonlyArray<string> =>
  Option.match(scope, { onNone: () => [], onSome: parse })

export const isValid = (scope: string): boolean => {
  const parts = scope.split(" ")
  return parts.length > 0 && parts.every((part) => token.test(part))
}

/** A refresh may narrow the granted scope but never widen it (RFC 6749 §6). */
export const isSubsetOf = (requested: string, granted: string): boolean => {
  const allowed = new Set(parse(granted))
  return parse(requested).every((part) => allowed.has(part))
}
