import * as Schema from "effect/Schema"
import { AmrEntry } from "../../../../domain/auth/AccessTokenClaims.js"
import * as Session from "../../../../domain/auth/Session.js"

/**
 * The `sessions` table: its columns as `Session` reads them and its row codec both ways. (Its
 * `not_after` column, Supabase Auth's, is left to its default: sessions have no lifetime here.)
 */

/**
 * The columns of `Session`, read from the table under `alias`. `host(ip)`: the address as it
 * was given, without the `/32` a plain text cast adds.
 */
export const columnsOf = (alias: string) =>
  `${alias}.id, ${alias}.user_id, ${alias}.aal, ${alias}.factor_id, ${alias}.user_agent,
  host(${alias}.ip) AS ip, ${alias}.tag, ${alias}.amr::text AS amr, ${alias}.generation, ${alias}.refreshed_at,
  ${alias}.revoked_at, ${alias}.created_at, ${alias}.updated_at`

/** A session row: `amr` travels as JSON text, as every JSON column of the auth tables. */
export const RowFields = Schema.Struct({
  ...Session.Session.fields,
  amr: Schema.parseJson(Schema.Array(AmrEntry))
})

export const Row = Schema.transform(RowFields, Schema.typeSchema(Session.Session), {
  strict: true,
  // Decoded field by field already: the class is not asked to validate them again.
  decode: (row) => new Session.Session(row, true),
  encode: (session) => ({ ...session })
})
