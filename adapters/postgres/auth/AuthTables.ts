import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import type * as Migrations from "../Migrations.js"

/**
 * The auth service's table names: schema `auth`, every table prefixed with `DB_NAMESPACE` and an
 * underscore when it is set, as Supabase Auth names them (`<namespace>_users`). Migration files
 * write the same names as `auth.{{prefix}}users`. The prefix was checked to be a plain identifier
 * part by the configuration, so names built here can go into SQL text as they are.
 */
export class AuthTables extends Context.Tag("latchkey/auth/AuthTables")<
  AuthTables,
  {
    /** `""`, or the namespace followed by `_`. */
    readonly prefix: string
    /** The qualified name of a table: `auth.<prefix><table>`. */
    readonly name: (table: string) => string
  }
>() {}

/** The table prefix for a `DB_NAMESPACE` value (empty: no prefix). */
export const prefixFor = (namespace: string): string => (namespace === "" ? "" : `${namespace}_`)

export const make = (namespace: string): Context.Tag.Service<AuthTables> => {
  const prefix = prefixFor(namespace)
  return { prefix, name: (table) => `auth.${prefix}${table}` }
}

export const layer = (namespace: string) => Layer.succeed(AuthTables, make(namespace))

/** Where the migrations of this namespace go (adapters/postgres/Migrations.ts). */
export const migrationTarget = (namespace: string): Migrations.Target => ({
  service: "auth",
  tablePrefix: prefixFor(namespace)
})
