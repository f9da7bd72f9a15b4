import { HttpIncomingMessage, HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { invalidRequest, type OAuthError } from "../../../application/oauth/OAuthError.js"

/** Bodies of /token, /revoke, /introspect, /register and /consent are small; larger ones are refused. */
export const maxBodyBytes = 64 * 1024

export interface Params {
  readonly values: Readonly<Record<string, string>>
  readonly duplicates: ReadonlyArray<string>
}

/** Parameters that appear once, and the names of those that appear more often (RFC 6749 §3.1). */
export const collect = (entries: Iterable<readonly [string, string]>): Params => {
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

const mediaType = (contentType: string | undefined) =>
  (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? ""

/** An `application/x-www-form-urlencoded` body (RFC 6749 §3.2). */
export const parseForm = (
  contentType: string | undefined,
  body: string
): Effect.Effect<Params, OAuthError> =>
  mediaType(contentType) === "application/x-www-form-urlencoded"
    ? Effect.succeed(collect(new URLSearchParams(body).entries()))
    : invalidRequest("the body must be application/x-www-form-urlencoded")

/** A JSON body (RFC 7591 §3.1). */
export const parseJson = (
  contentType: string | undefined,
  body: string
): Effect.Effect<unknown, OAuthError> =>
  mediaType(contentType) === "application/json"
    ? Effect.try({ try: () => JSON.parse(body), catch: () => invalidRequest("the body is not valid JSON") })
    : invalidRequest("the body must be application/json")

/** A form posted by a browser to a page route; an unreadable or oversized one reads as empty. */
export const browserForm: Effect.Effect<Params, never, HttpServerRequest.HttpServerRequest> = Effect.gen(
  function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const text = yield* request.text.pipe(HttpIncomingMessage.withMaxBodySize(Option.some(maxBodyBytes)))
    return yield* parseForm(request.headers["content-type"], text)
  }
).pipe(Effect.orElseSucceed(() => collect([])))

export const get = (params: Params, name: string): Option.Option<string> =>
  Option.fromNullable(params.values[name])
