import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  CustomProviderStore,
  IdentifierTaken,
  OverProviderQuota
} from "../../../application/auth/ports/CustomProviderStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as CustomProvider from "../../../domain/auth/CustomProvider.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import * as UniqueViolation from "../UniqueViolation.js"
import { AuthTables } from "./AuthTables.js"

/**
 * The row as the client hands it over: JSON columns come as text (the client camel-cases the
 * keys of objects in a row, and mapping keys are the operator's), the rest as the domain has it.
 */
const Row = Schema.Struct({
  ...CustomProvider.CustomProvider.fields,
  attributeMapping: Schema.parseJson(CustomProvider.AttributeMapping),
  authorizationParams: Schema.parseJson(CustomProvider.AuthorizationParams),
  discovery: Schema.OptionFromNullOr(Schema.parseJson(CustomProvider.Discovery))
})

const columns = `id, provider_type, identifier, name, client_id, client_secret, acceptable_client_ids,
  scopes, pkce_enabled, attribute_mapping::text AS attribute_mapping, custom_claims_allowlist,
  authorization_params::text AS authorization_params, enabled, email_optional, issuer, discovery_url,
  skip_nonce_check, cached_discovery::text AS discovery, authorization_url, token_url, userinfo_url,
  jwks_uri, created_at, updated_at`

/**
 * Custom providers on Postgres. A creation under a quota locks the table against other
 * creations for its transaction, so instances creating at once cannot pass the quota together;
 * an identifier taken meanwhile is caught by the unique constraint.
 */
export const layer = Layer.effect(
  CustomProviderStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* AuthTables
    const table = tables.name("custom_oauth_providers")
    const providers = sql(table)
    const encode = Schema.encodeSync(Row)
    const toProvider = (row: typeof Row.Type) => new CustomProvider.CustomProvider(row)
    // The columns, named as the client's name transform snake-cases them.
    const values = (provider: CustomProvider.CustomProvider) => {
      const { discovery, ...rest } = encode(provider)
      return { ...rest, cachedDiscovery: discovery }
    }

    const insert = (provider: CustomProvider.CustomProvider, quota: Option.Option<number>) =>
      Effect.gen(function* () {
        if (Option.isSome(quota)) {
          yield* sql.unsafe(`LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`)
          const [counted] = yield* sql<{
            readonly count: number
          }>`SELECT count(*)::int AS count FROM ${providers}`
          if ((counted?.count ?? 0) >= quota.value) return yield* new OverProviderQuota()
        }
        yield* sql`INSERT INTO ${providers} ${sql.insert(values(provider))}`
      })

    return {
      create: Telemetry.fn("CustomProviderStorePg.create")((provider, quota) =>
        sql
          .withTransaction(insert(provider, quota))
          .pipe(
            Effect.catchTag("SqlError", (error) =>
              Option.isSome(UniqueViolation.constraintOf(error))
                ? Effect.fail(new IdentifierTaken())
                : Effect.die(error)
            )
          )
      ),
      find: Telemetry.fn("CustomProviderStorePg.find")((identifier) =>
        sql`SELECT ${sql.unsafe(columns)} FROM ${providers} WHERE identifier = ${identifier}`.pipe(
          decodeFirst(Row),
          Effect.map(Option.map(toProvider))
        )
      ),
      list: Telemetry.fn("CustomProviderStorePg.list")((type) =>
        Option.match(type, {
          onNone: () => sql`SELECT ${sql.unsafe(columns)} FROM ${providers} ORDER BY created_at DESC, id`,
          onSome: (only) =>
            sql`SELECT ${sql.unsafe(columns)} FROM ${providers} WHERE provider_type = ${only}
                ORDER BY created_at DESC, id`
        }).pipe(
          decodeAll(Row),
          Effect.map((rows) => rows.map(toProvider))
        )
      ),
      update: Telemetry.fn("CustomProviderStorePg.update")((provider) => {
        const {
          id: _id,
          identifier: _identifier,
          providerType: _type,
          createdAt: _created,
          ...changed
        } = values(provider)
        return sql`UPDATE ${providers} SET ${sql.update(changed)} WHERE id = ${provider.id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
      }),
      remove: Telemetry.fn("CustomProviderStorePg.remove")((identifier) =>
        sql`DELETE FROM ${providers} WHERE identifier = ${identifier} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
      )
    }
  })
)
