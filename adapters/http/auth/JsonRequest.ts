import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { HttpRequest } from "../HttpMessage.js"
import * as JsonBody from "../JsonBody.js"
import * as Refusal from "./Refusal.js"

/**
 * A field of a request body as Supabase Auth reads it into a Go struct: absent and `null` both
 * leave it unset; a value of another JSON type is an error.
 */
export const field = <A, I>(schema: Schema.Schema<A, I>) => Schema.optionalWith(schema, { nullable: true })

/**
 * Decodes a request body into `schema`. Supabase Auth unmarshals every body as JSON whatever
 * its media type: text that is not JSON, or a field of the wrong type, is 400 `bad_json`
 * ("Could not parse request body as JSON: …"). An empty body or `null` decodes as `{}`, as an
 * empty Go struct would; unknown fields are ignored.
 */
export const decode =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (request: Pick<HttpRequest, "body">): Effect.Effect<A, Refusal.BadJson> => {
    const text = request.body.trim() === "" ? "{}" : request.body
    return Either.match(JsonBody.parse(text), {
      onLeft: (description) => Effect.fail(new Refusal.BadJson({ detail: description })),
      onRight: (value) => {
        if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
          return Effect.fail(new Refusal.BadJson({ detail: "the body must be a JSON object" }))
        }
        return Schema.decodeUnknown(schema, { onExcessProperty: "ignore" })(value ?? {}).pipe(
          Effect.mapError((error) => new Refusal.BadJson({ detail: firstIssue(error) }))
        )
      }
    })
  }

/** One line naming the field at fault, e.g. `email: expected a string`. */
const firstIssue = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const issue = issues[0]
  if (issue === undefined) return "the body does not have the expected fields"
  const path = issue.path.map(String).join(".")
  return path === "" ? issue.message : `${path}: ${issue.message}`
}
