import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { SessionStore } from "../../../application/oauth/ports/SessionStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import type { SecretHash } from "../../../domain/Ids.js"
import * as BrowserSession from "../../../domain/oauth/BrowserSession.js"
import * as BatchedDelete from "../BatchedDelete.js"
import { decodeFirst } from "../Rows.js"

export const layer = Layer.effect(
  SessionStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const encode = Schema.encodeSync(BrowserSession.BrowserSession)
    return {
      create: Telemetry.fn("SessionStorePg.create")(
        (session: BrowserSession.BrowserSession) =>
          sql`INSERT INTO oauth.sessions ${sql.insert({ ...encode(session) })}`.pipe(
            Effect.asVoid,
            Effect.orDie
          ),
        (session) => ({ "user.id": session.userId })
      ),
      find: Telemetry.fn("SessionStorePg.find")((tokenHash: SecretHash, now: Date) =>
        sql`
          SELECT token_hash, user_id, created_at, expires_at FROM oauth.sessions
          WHERE token_hash = ${tokenHash}`.pipe(
          decodeFirst(BrowserSession.BrowserSession),
          Effect.map(Option.filter((session) => BrowserSession.isActive(session, now)))
        )
      ),
      purge: Telemetry.fn("SessionStorePg.purge")((now, limit) =>
        BatchedDelete.count(
          sql,
          { table: "oauth.sessions", key: "token_hash", where: "candidate.expires_at <= $1", limit: "$2" },
          [now, limit]
        )
      )
    }
  })
)
