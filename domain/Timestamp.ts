import * as Schema from "effect/Schema"

/**
 * A point in time as the models store it. It decodes from an ISO-8601 string (JSON) or from a
 * `Date` (what the Postgres driver returns for `timestamptz`), and encodes to an ISO-8601 string,
 * which both JSON and a Postgres parameter accept: one schema for the wire and for rows.
 */
export const Timestamp = Schema.Union(Schema.Date, Schema.ValidDateFromSelf)
export type Timestamp = typeof Timestamp.Type
