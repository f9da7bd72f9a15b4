import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { MailOutbox, OutboxUnavailable } from "../../../application/auth/ports/MailOutbox.js"
import * as Telemetry from "../../../application/Telemetry.js"
import { Kind, Message, MessageId } from "../../../domain/auth/Mail.js"
import * as Time from "../../../domain/Time.js"
import { Timestamp } from "../../../domain/Timestamp.js"
import { decodeAll } from "../Rows.js"
import { AuthTables } from "./AuthTables.js"
import * as MailOutboxTable from "./tables/MailOutbox.js"

const ClaimedRow = Schema.Struct({
  id: MessageId,
  kind: Kind,
  recipient: Schema.String,
  variables: Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  attempts: Schema.Int,
  queuedAt: Timestamp
})

const unavailable = (error: SqlError) => new OutboxUnavailable({ message: error.message })

/**
 * The outbox on Postgres. Statements run through `@effect/sql`, so `enqueue` joins the
 * transaction it is called in (TransactionsPg). A claim leases the due messages it finds with
 * `FOR UPDATE SKIP LOCKED`: workers of every instance claim at once without waiting for each
 * other and without taking a message twice.
 */
export const layer = Layer.effect(
  MailOutbox,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* AuthTables
    const outbox = sql(tables.name("mail_outbox"))

    return {
      enqueue: Telemetry.fn("MailOutboxPg.enqueue")(
        (message, now) =>
          Effect.gen(function* () {
            const row = MailOutboxTable.queuedRow(message, now)
            yield* sql`INSERT INTO ${outbox} ${sql.insert(row)}`
            return row.id
          }).pipe(Effect.orDie),
        (message) => ({ "mail.kind": message.kind })
      ),
      claim: Telemetry.fn("MailOutboxPg.claim")((now, max, lease) =>
        sql`
          UPDATE ${outbox} SET leased_until = ${Time.plus(now, lease)}
          WHERE id IN (
            SELECT id FROM ${outbox}
            WHERE due_at IS NOT NULL AND due_at <= ${now} AND (leased_until IS NULL OR leased_until <= ${now})
            ORDER BY due_at
            LIMIT ${max}
            FOR UPDATE SKIP LOCKED)
          RETURNING id, kind, recipient, variables, attempts, queued_at`.pipe(
          decodeAll(ClaimedRow),
          Effect.map((rows) =>
            rows.map((row) => ({
              id: row.id,
              message: new Message({ kind: row.kind, to: row.recipient, variables: row.variables }, true),
              attempts: row.attempts,
              queuedAt: row.queuedAt
            }))
          )
        )
      ),
      delivered: Telemetry.fn("MailOutboxPg.delivered")(
        (id, now) =>
          sql`
            UPDATE ${outbox}
            SET delivered_at = ${now}, due_at = NULL, leased_until = NULL, variables = NULL
            WHERE id = ${id}`.pipe(Effect.asVoid, Effect.mapError(unavailable)),
        (id) => ({ "mail.id": id })
      ),
      extend: Telemetry.fn("MailOutboxPg.extend")((ids, until) =>
        ids.length === 0
          ? Effect.void
          : sql`
              UPDATE ${outbox} SET leased_until = ${until}
              WHERE id IN ${sql.in(ids)} AND due_at IS NOT NULL AND leased_until IS NOT NULL`.pipe(
              Effect.asVoid,
              Effect.mapError(unavailable)
            )
      ),
      retry: Telemetry.fn("MailOutboxPg.retry")(
        (id, at, error) =>
          sql`
            UPDATE ${outbox}
            SET attempts = attempts + 1, due_at = ${at}, leased_until = NULL, last_error = ${error}
            WHERE id = ${id} AND due_at IS NOT NULL`.pipe(Effect.asVoid, Effect.orDie),
        (id) => ({ "mail.id": id })
      ),
      giveUp: Telemetry.fn("MailOutboxPg.giveUp")(
        (id, now, error) =>
          sql`
            UPDATE ${outbox}
            SET attempts = attempts + 1, given_up_at = ${now}, due_at = NULL, leased_until = NULL,
                variables = NULL, last_error = ${error}
            WHERE id = ${id} AND due_at IS NOT NULL`.pipe(Effect.asVoid, Effect.orDie),
        (id) => ({ "mail.id": id })
      )
    }
  })
)
