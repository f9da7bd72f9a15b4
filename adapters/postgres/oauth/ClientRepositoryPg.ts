import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ClientAlreadyExists, ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import * as Telemetry from "../../../application/Telemetry.js"
import { ClientId } from "../../../domain/Ids.js"
import * as Client from "../../../domain/oauth/Client.js"
import * as BatchedDelete from "../BatchedDelete.js"
import { PgPool } from "../PgPool.js"
import * as Prepared from "../Prepared.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import * as SharedStatements from "../SharedStatements.js"

const columns = "id, name, type, origin, redirect_uris, secret_hash, jwks_uri, created_at, last_used_at"

// Every token, revocation and registration request runs one of these.
const findByIdStatement = Prepared.statement(
  "find_client",
  `SELECT ${columns} FROM oauth.clients WHERE id = $1`
)
/**
 * $1 the clients as a JSON array of rows; ids are distinct. Registrations arriving together share
 * this one insert (SharedStatements.ts); the ids it returns are the clients it stored.
 */
const insertStatement = Prepared.statement(
  "insert_clients",
  `INSERT INTO oauth.clients (${columns})
   SELECT ${columns} FROM jsonb_populate_recordset(NULL::oauth.clients, $1::jsonb)
   ON CONFLICT (id) DO NOTHING
   RETURNING id`
)

const Inserted = Schema.Struct({ id: Schema.String })

export const layer = Layer.effect(
  ClientRepository,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* PgPool
    // The encoded client's fields are the columns (camel-cased by the client's name transform).
    const encode = Schema.encodeSync(Client.Client)
    // The row of the batched insert, by hand: the Schema encoding was ~3% of a registration.
    const snakeCased = (client: Client.Client) => ({
      id: client.id,
      name: client.name,
      type: client.type,
      origin: client.origin,
      redirect_uris: client.redirectUris,
      secret_hash: Option.getOrNull(client.secretHash),
      jwks_uri: Option.getOrNull(client.jwksUri),
      created_at: client.createdAt,
      last_used_at: Option.getOrNull(client.lastUsedAt)
    })
    // Whether each client was stored: not when its id was taken, before or earlier in the batch.
    /** Where each id first comes among `clients`: only that one is inserted. */
    const firstOf = (clients: ReadonlyArray<Client.Client>) => {
      const first = new Map<string, number>()
      clients.forEach((client, i) => {
        if (!first.has(client.id)) first.set(client.id, i)
      })
      return first
    }
    const insertAll = yield* SharedStatements.make({
      sql,
      pool,
      statement: insertStatement,
      parameters: (clients: ReadonlyArray<Client.Client>) => [
        JSON.stringify(clients.filter((client, i) => firstOf(clients).get(client.id) === i).map(snakeCased))
      ],
      row: Inserted,
      answers: (inserted, clients) => {
        const first = firstOf(clients)
        const stored = new Set(inserted.map((row) => row.id))
        return clients.map((client, i) => first.get(client.id) === i && stored.has(client.id))
      }
    })

    return {
      insert: Telemetry.fn("ClientRepositoryPg.insert")(
        (client: Client.Client) =>
          insertAll(client).pipe(
            Effect.flatMap((inserted) =>
              inserted ? Effect.void : new ClientAlreadyExists({ clientId: client.id })
            )
          ),
        (client) => ({ "client.id": client.id })
      ),
      // One statement, so concurrent first fetches of a document cannot race to a duplicate
      // key: the WHERE on the conflict branch leaves a client of another origin untouched, and
      // then nothing is returned.
      upsert: Telemetry.fn("ClientRepositoryPg.upsert")(
        (client: Client.Client) =>
          Effect.gen(function* () {
            const stored = yield* sql`
          INSERT INTO oauth.clients ${sql.insert({ ...encode(client) })}
          ON CONFLICT (id) DO UPDATE SET
            name = excluded.name,
            type = excluded.type,
            redirect_uris = excluded.redirect_uris,
            secret_hash = excluded.secret_hash,
            jwks_uri = excluded.jwks_uri
          WHERE oauth.clients.origin = excluded.origin
          RETURNING ${sql.literal(columns)}`.pipe(decodeFirst(Client.Client))
            if (Option.isNone(stored)) return yield* new ClientAlreadyExists({ clientId: client.id })
            return stored.value
          }),
        (client) => ({ "client.id": client.id })
      ),
      findById: Telemetry.fn("ClientRepositoryPg.findById")(
        (id) => Prepared.run(pool, findByIdStatement, [id]).pipe(decodeFirst(Client.Client)),
        (id) => ({ "client.id": id })
      ),
      list: Telemetry.fn("ClientRepositoryPg.list")(() =>
        sql`SELECT ${sql.literal(columns)} FROM oauth.clients ORDER BY created_at, id`.pipe(
          decodeAll(Client.Client)
        )
      )(),
      remove: Telemetry.fn("ClientRepositoryPg.remove")(
        (id) =>
          sql`DELETE FROM oauth.clients WHERE id = ${id} RETURNING id`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          ),
        (id) => ({ "client.id": id })
      ),
      touch: Telemetry.fn("ClientRepositoryPg.touch")(
        (id, now) =>
          sql`UPDATE oauth.clients SET last_used_at = ${now} WHERE id = ${id}`.pipe(
            Effect.asVoid,
            Effect.orDie
          ),
        (id) => ({ "client.id": id })
      ),
      // Dependent codes, pending logins and tokens go with the client through ON DELETE CASCADE.
      reapIdle: Telemetry.fn("ClientRepositoryPg.reapIdle")((now, limit) =>
        sql
          .unsafe(
            `${BatchedDelete.deleteText({
              table: "oauth.clients",
              key: "id",
              where: `candidate.origin = 'dynamic' AND candidate.type = 'public'
                AND coalesce(candidate.last_used_at, candidate.created_at) <= $1`,
              limit: "$2"
            })} RETURNING id`,
            [Client.idleCutoff(now), limit]
          )
          .pipe(
            decodeAll(Schema.Struct({ id: ClientId })),
            Effect.map((rows) => rows.map((row) => row.id))
          )
      )
    }
  })
)
