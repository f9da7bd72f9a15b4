import { HttpIncomingMessage, HttpServerRequest } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { invalidRequest, type OAuthError } from "../../../application/oauth/OAuthError.js"

/** A body over the limit: answered 413 with an OAuth error body. */
export class BodyTooLarge extends Schema.TaggedError<BodyTooLarge>()("BodyTooLarge", {}) {}

/** Bodies of /token, /revoke, /introspect and /register are small; anything larger is refused. */
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

/** Reads the raw body, refusing oversized ones before reading (declared length) and while reading. */
export const readBody = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const declared = Number(request.headers["content-length"] ?? "0")
  if (declared > maxBodyBytes) return yield* new BodyTooLarge()
  const text = yield* request.text.pipe(
    HttpIncomingMessage.withMaxBodySize(Option.some(maxBodyBytes)),
    Effect.mapError(() => new BodyTooLarge())
  )
  if (Buffer.byteLength(text) > maxBodyBytes) return yield* new BodyTooLarge()
  return text
})

const mediaType = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? ""

/** An `application/x-www-form-urlencoded` body (RFC 6749 §3.2). */
export const form: Effect.Effect<Params, OAuthError | BodyTooLarge, HttpServerRequest.HttpServerRequest> =
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (mediaType(request) !== "application/x-www-form-urlencoded") {
      return yield* invalidRequest("the body must be application/x-www-form-urlencoded")
    }
    return collect(new URLSearchParams(yield* readBody).entries())
  })

/** A JSON body (RFC 7591 §3.1). */
export const json: Effect.Effect<unknown, OAuthError | BodyTooLarge, HttpServerRequest.HttpServerRequest> =
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (mediaType(request) !== "application/json")
      return yield* invalidRequest("the body must be application/json")
    const text = yield* readBody
    return yield* Effect.try({
      try: () => JSON.parse(text),
      catch: () => invalidRequest("the body is not valid JSON")
    })
  })

export const get = (params: Params, name: string): Option.Option<string> =>
  Option.fromNullable(params.values[name])
