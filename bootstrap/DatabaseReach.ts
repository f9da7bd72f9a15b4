import { SqlError } from "@effect/sql/SqlError"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

export class DatabaseUnreachable extends Schema.TaggedError<DatabaseUnreachable>()("DatabaseUnreachable", {
  message: Schema.String
}) {}

/**
 * The configured database refusing the connection (or the login) at start, told in one line
 * that names the service and the variable to check: "auth: DATABASE_URL: cannot connect to
 * PostgreSQL: connect ECONNREFUSED 127.0.0.1:5432". `variable` is none for the embedded
 * database, which no variable names. Database.layer fails with an SqlError only while it opens
 * its first connection.
 */
export const naming =
  (service: string, variable: Option.Option<string>) =>
  <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E | DatabaseUnreachable, R> =>
    Option.match(variable, {
      onNone: () => layer,
      onSome: (name) =>
        Layer.mapError(layer, (error) => {
          if (!(error instanceof SqlError)) return error
          const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ""
          return new DatabaseUnreachable({ message: `${service}: ${name}: ${error.message}${cause}` })
        })
    })
