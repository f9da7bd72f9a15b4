import * as Schema from "effect/Schema"

/**
 * A JSON object column read as text: the client camel-cases the keys of every object in a row,
 * and metadata keys (`full_name`) are the user's own, to be returned as they were given.
 */
export const JsonObject = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
