import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Str from "effect/String"
import { type Enrolment, Enrolments } from "../../../application/auth/ports/Enrolments.js"
import { EmailExists, IdentityExists, PhoneExists } from "../../../application/auth/ports/UserRepository.js"
import * as Telemetry from "../../../application/Telemetry.js"
import { decodeFirst } from "../Rows.js"
import * as SharedStatements from "../SharedStatements.js"
import { AuthTables } from "./AuthTables.js"
import * as FlowStates from "./tables/FlowStates.js"
import * as Identities from "./tables/Identities.js"
import * as MailOutbox from "./tables/MailOutbox.js"
import * as OneTimeTokens from "./tables/OneTimeTokens.js"
import * as Users from "./tables/Users.js"

/** Columns whose value comes as JSON text (the table modules' `row`), to be stored as the JSON it holds. */
const jsonColumns = new Set<string>([...Users.jsonColumns, ...Identities.jsonColumns])

/** An INSERT of `columns` from the rows `source` yields as `r` (of the table's row type). */
const insertFrom = (table: string, columns: ReadonlyArray<string>, source: string) =>
  `INSERT INTO ${table} (${columns.join(", ")})
   SELECT ${columns.map((column) => (jsonColumns.has(column) ? `(r.${column} #>> '{}')::jsonb` : `r.${column}`)).join(", ")}
   FROM ${source}`

/**
 * $1 the enrolments, a JSON array of `{ user, identities, flow, token, mail }` rows under their
 * column names, for the requests that arrive together (Batched.ts). Every table's rows are
 * written in one statement, atomic on its own; the rows reference each other's, which
 * PostgreSQL checks at the statement's end. A user whose address, number or identity is taken
 * is left out with everything of theirs instead of failing the others, and the users written
 * are what the statement returns. Taken identities are looked for first, as no `ON CONFLICT`
 * of the identities' insert could leave their user out.
 */
const enrolText = (name: (table: string) => string) =>
  `WITH input AS (
     SELECT e FROM jsonb_array_elements($1::jsonb) AS input(e)
   ), new_users AS (
     ${insertFrom(name("users"), Users.insertColumns, `input, jsonb_populate_record(NULL::${name("users")}, e->'user') r`)}
     WHERE NOT EXISTS (
       SELECT 1 FROM jsonb_array_elements(e->'identities') n
       WHERE (SELECT true FROM ${name("identities")} x
              WHERE x.provider_id = n->>'provider_id' AND x.provider = n->>'provider' LIMIT 1))
     ON CONFLICT DO NOTHING
     RETURNING id
   ), written AS (
     SELECT e FROM input WHERE (e->'user'->>'id')::uuid IN (SELECT id FROM new_users)
   ), new_identities AS (
     ${insertFrom(name("identities"), Identities.insertColumns, `written, jsonb_populate_recordset(NULL::${name("identities")}, e->'identities') r`)}
   ), new_flows AS (
     ${insertFrom(name("flow_states"), FlowStates.insertColumns, `written, jsonb_populate_record(NULL::${name("flow_states")}, e->'flow') r`)}
     WHERE jsonb_typeof(e->'flow') = 'object'
   ), new_tokens AS (
     ${insertFrom(name("one_time_tokens"), OneTimeTokens.insertColumns, `written, jsonb_populate_record(NULL::${name("one_time_tokens")}, e->'token') r`)}
   ), new_mail AS (
     ${insertFrom(name("mail_outbox"), MailOutbox.insertColumns, `written, jsonb_populate_record(NULL::${name("mail_outbox")}, e->'mail') r`)}
   )
   SELECT id FROM new_users`

/**
 * What kept an enrolment out: $1 its address (null: none), $2 its number (null: none), $3 and
 * $4 its identities' providers and subjects.
 */
const takenText = (name: (table: string) => string) =>
  `SELECT
     EXISTS (SELECT 1 FROM ${name("users")} WHERE email = $1 AND is_sso_user = false) AS email,
     EXISTS (SELECT 1 FROM ${name("users")} WHERE phone = $2) AS phone,
     (SELECT x.provider_id FROM ${name("identities")} x
        JOIN unnest($3::text[], $4::text[]) AS n(provider, provider_id)
          ON x.provider = n.provider AND x.provider_id = n.provider_id
      LIMIT 1) AS identity`

const TakenRow = Schema.Struct({
  email: Schema.Boolean,
  phone: Schema.Boolean,
  identity: Schema.NullOr(Schema.String)
})

/** Column names for the keys of an encoded row, as `@effect/sql` names them (Database.ts). */
const snakeNames = new Map<string, string>()
const snakeCased = (row: Readonly<Record<string, unknown>>) => {
  const out: Record<string, unknown> = {}
  for (const key in row) {
    let name = snakeNames.get(key)
    if (name === undefined) {
      name = Str.camelToSnake(key)
      snakeNames.set(key, name)
    }
    out[name] = row[key]
  }
  return out
}

/** The statement's parameter for some enrolments. */
const payload = (enrolments: ReadonlyArray<Enrolment>) =>
  JSON.stringify(
    enrolments.map((enrolment) => ({
      user: snakeCased(Users.insertRow(enrolment.user, enrolment.passwordHash)),
      identities: enrolment.identities.map((identity) => snakeCased(Identities.row(identity))),
      flow: Option.match(enrolment.flow, {
        onNone: () => null,
        onSome: (flow) => snakeCased(FlowStates.row(flow))
      }),
      token: snakeCased(OneTimeTokens.row(enrolment.token)),
      mail: snakeCased(MailOutbox.queuedRow(enrolment.mail, enrolment.now))
    }))
  )

const WrittenRow = Schema.Struct({ id: Schema.String })

/** Which of `enrolments` the statement wrote, from the ids of the users it returned. */
const writtenOf = (rows: ReadonlyArray<typeof WrittenRow.Type>, enrolments: ReadonlyArray<Enrolment>) => {
  const ids = new Set(rows.map((row) => row.id))
  return enrolments.map((enrolment) => ids.has(enrolment.user.id))
}

/**
 * Enrolments on Postgres: the enrolments that arrive together share one statement
 * (SharedStatements.ts; inside a transaction an enrolment runs alone on its connection). An enrolment left out is looked into with a read:
 * the typed error of what is taken, or, when what was in the way is gone by then, one more try.
 * Neither a conflict nor its explanation is a failed statement, which on the embedded database
 * would end its one connection (the next statement would fail with it).
 */
export const layer = Layer.effect(
  Enrolments,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* AuthTables
    // Planned at every call, which is once per batch: a new deployment's tables grow from
    // empty, and a plan kept from then would scan them instead of using their indexes.
    const text = enrolText(tables.name)
    const taken = takenText(tables.name)

    const write = yield* SharedStatements.unprepared({
      sql,
      name: "auth_enrol",
      text,
      parameters: (enrolments: ReadonlyArray<Enrolment>) => [payload(enrolments)],
      row: WrittenRow,
      answers: writtenOf
    })

    /** The conflict that kept `enrolment` out, if it is still there. */
    const conflictOf = (enrolment: Enrolment) =>
      sql
        .unsafe(taken, [
          Option.getOrNull(enrolment.user.email),
          Option.getOrNull(enrolment.user.phone),
          enrolment.identities.map((identity) => identity.provider),
          enrolment.identities.map((identity) => identity.providerId)
        ])
        .pipe(
          decodeFirst(TakenRow),
          Effect.map(
            Option.flatMap((row): Option.Option<EmailExists | PhoneExists | IdentityExists> => {
              const { email, phone } = enrolment.user
              if (row.email && Option.isSome(email))
                return Option.some(new EmailExists({ email: email.value }))
              if (row.phone && Option.isSome(phone))
                return Option.some(new PhoneExists({ phone: phone.value }))
              const identity = enrolment.identities.find((candidate) => candidate.providerId === row.identity)
              return identity === undefined
                ? Option.none()
                : Option.some(
                    new IdentityExists({ provider: identity.provider, providerId: identity.providerId })
                  )
            })
          )
        )

    const enrol = (
      enrolment: Enrolment,
      triesLeft: number
    ): Effect.Effect<void, EmailExists | PhoneExists | IdentityExists> =>
      Effect.gen(function* () {
        if (yield* write(enrolment)) return
        const conflict = yield* conflictOf(enrolment)
        if (Option.isSome(conflict)) return yield* Effect.fail(conflict.value)
        if (triesLeft === 0) return yield* Effect.dieMessage("an enrolment left out for no conflict, twice")
        return yield* enrol(enrolment, triesLeft - 1)
      })

    return {
      enrol: Telemetry.fn("EnrolmentsPg.enrol")(
        (enrolment) => enrol(enrolment, 1),
        (enrolment) => ({ "user.id": enrolment.user.id })
      )
    }
  })
)
