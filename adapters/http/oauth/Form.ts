import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { invalidRequest, OAuthError } from "../../../application/oauth/OAuthError.js"

/** Parameters that appeared once, and the names of those that appeared more often (RFC 6749 §3.1). */
export interface Params {
  readonly values: Readonly<Record<string, string>>
  readonly duplicates: ReadonlyArray<string>
}

const collect = (entries: Iterable<readonly [string, string]>): Params => {
  const values: Record<string, string> = {}
  const duplicates = new Set<string>()
  for (const [name, value] of entries) {
    if (Object.hasOwn(values, name) || duplicates.has(name)) {
      duplicates.add(name)
      delete values[name]
    } else if (value !== "") {
      // RFC 6749 §3.1: a parameter sent without a value is treated as omitted.
      values[name] = value
    }
  }
  return { values, duplicates: [...duplicates] }
}

/**
 * An `application/x-www-form-urlencoded` body (RFC 6749 §3.2) or a query string. The server
 * has already checked the media type and refused NUL characters.
 */
export const parse = (text: string): Params => collect(new URLSearchParams(text).entries())

export const get = (params: Params, name: string): Option.Option<string> =>
  Option.fromNullable(params.values[name])

/** Parameters each given at most once (RFC 6749 §3.2), or the first one repeated. */
const once = (params: Params): Effect.Effect<Params, OAuthError> => {
  const repeated = params.duplicates[0]
  return repeated === undefined
    ? Effect.succeed(params)
    : Effect.fail(invalidRequest(`${repeated} is repeated`))
}

/** A token-endpoint style form: every parameter at most once (RFC 6749 §3.2). */
export const unrepeated = (text: string): Effect.Effect<Params, OAuthError> => once(parse(text))

/**
 * The token endpoint's form: as `unrepeated`, but several `resource` parameters, which RFC 8707
 * §2 lets a client send, are `invalid_target` from a server that takes one at a time.
 */
export const tokenRequest = (text: string): Effect.Effect<Params, OAuthError> => {
  const params = parse(text)
  return params.duplicates.includes("resource")
    ? Effect.fail(
        new OAuthError({ code: "invalid_target", description: "one resource per request is supported" })
      )
    : once(params)
}
