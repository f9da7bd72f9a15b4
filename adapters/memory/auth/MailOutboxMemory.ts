import { randomUUID } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { MailOutbox, type Queued } from "../../../application/auth/ports/MailOutbox.js"
import { type Message, MessageId } from "../../../domain/auth/Mail.js"
import * as Time from "../../../domain/Time.js"

interface Row {
  readonly id: MessageId
  /** None once delivered or given up: the body is erased then, as on Postgres. */
  readonly message: Message | undefined
  readonly queuedAt: Date
  readonly dueAt: Date | undefined
  readonly leasedUntil: Date | undefined
  readonly attempts: number
}

/** The outbox in one process's memory; each change of the map is one atomic step. */
export const layer = Layer.effect(
  MailOutbox,
  Effect.gen(function* () {
    const rows = yield* Ref.make(new Map<MessageId, Row>())
    const change = (id: MessageId, update: (row: Row) => Row) =>
      Ref.update(rows, (all) => {
        const row = all.get(id)
        if (row === undefined || row.dueAt === undefined) return all
        return new Map(all).set(id, update(row))
      })
    return {
      enqueue: (message, now) =>
        Ref.modify(rows, (all) => {
          const id = MessageId.make(randomUUID())
          const row: Row = { id, message, queuedAt: now, dueAt: now, leasedUntil: undefined, attempts: 0 }
          return [id, new Map(all).set(id, row)]
        }),
      claim: (now, max, lease) =>
        Ref.modify(rows, (all) => {
          const due = [...all.values()]
            .filter(
              (row) =>
                row.dueAt !== undefined &&
                row.dueAt.getTime() <= now.getTime() &&
                (row.leasedUntil === undefined || row.leasedUntil.getTime() <= now.getTime())
            )
            .sort((a, b) => (a.dueAt?.getTime() ?? 0) - (b.dueAt?.getTime() ?? 0))
            .slice(0, max)
          const next = new Map(all)
          const claimed: Array<Queued> = []
          for (const row of due) {
            if (row.message === undefined) continue
            next.set(row.id, { ...row, leasedUntil: Time.plus(now, lease) })
            claimed.push({ id: row.id, message: row.message, attempts: row.attempts, queuedAt: row.queuedAt })
          }
          return [claimed, next]
        }),
      delivered: (id) =>
        change(id, (row) => ({ ...row, message: undefined, dueAt: undefined, leasedUntil: undefined })),
      extend: (ids, until) =>
        Ref.update(rows, (all) => {
          const next = new Map(all)
          for (const id of ids) {
            const row = all.get(id)
            if (row !== undefined && row.dueAt !== undefined && row.leasedUntil !== undefined)
              next.set(id, { ...row, leasedUntil: until })
          }
          return next
        }),
      retry: (id, at) =>
        change(id, (row) => ({ ...row, attempts: row.attempts + 1, dueAt: at, leasedUntil: undefined })),
      giveUp: (id) =>
        change(id, (row) => ({
          ...row,
          attempts: row.attempts + 1,
          message: undefined,
          dueAt: undefined,
          leasedUntil: undefined
        }))
    }
  })
)
