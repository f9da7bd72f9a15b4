import { createHash } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as NodeSecrets from "../../../adapters/crypto/NodeSecrets.js"
import * as OAuthStoragePg from "../../../adapters/postgres/oauth/OAuthStoragePg.js"
import { AuthorizationCodeStore } from "../../../application/oauth/ports/AuthorizationCodeStore.js"
import { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import { PendingLoginStore } from "../../../application/oauth/ports/PendingLoginStore.js"
import { TokenStore } from "../../../application/oauth/ports/TokenStore.js"
import { Secrets } from "../../../application/ports/Secrets.js"
import type { TokenKind } from "../../../domain/TokenKind.js"
import * as Fixtures from "../../support/oauth/Fixtures.js"
import * as TestDatabase from "../../support/TestDatabase.js"

const services = Layer.merge(OAuthStoragePg.layer, NodeSecrets.layer)

/** Mints a real secret and returns it with the hash the application would store. */
const mint = (kind: TokenKind) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const token = yield* secrets.token(kind)
    const hash = yield* secrets.hash(token)
    return { plaintext: Redacted.value(token), hash }
  })

for (const target of ["pglite", "server"] as const) {
  layer(Layer.provideMerge(services, TestDatabase.layer(target)), { timeout: "60 seconds" })(
    `secrets at rest on ${TestDatabase.describeTarget(target)}`,
    (it) => {
      describe("no table holds a token, code, state or client secret in plaintext", () => {
        it.effect("only SHA-256 digests of 256-bit secrets are stored", () =>
          Effect.gen(function* () {
            const clientSecret = yield* mint("client_secret")
            const client = Fixtures.client({
              type: "confidential",
              origin: "seeded",
              secretHash: Option.some(clientSecret.hash)
            })
            yield* Effect.flatMap(ClientRepository, (c) => c.insert(client))
            const user = yield* Fixtures.user()
            const code = yield* mint("code")
            yield* Effect.flatMap(AuthorizationCodeStore, (s) =>
              s.issue(Fixtures.code({ clientId: client.id, userId: user.id, hash: code.hash }))
            )
            const state = yield* mint("state")
            yield* Effect.flatMap(PendingLoginStore, (s) =>
              s.put(Fixtures.pendingLogin({ clientId: client.id, stateHash: state.hash }))
            )
            const access = yield* mint("access")
            const refresh = yield* mint("refresh")
            const family = Fixtures.family({ clientId: client.id, userId: user.id })
            yield* Effect.flatMap(TokenStore, (s) =>
              s.issue({
                access: Fixtures.accessToken({ clientId: client.id, userId: user.id, hash: access.hash }),
                refresh: Option.some({ family, tokenHash: refresh.hash })
              })
            )
            const secrets = [clientSecret, code, state, access, refresh]

            const sql = yield* SqlClient.SqlClient
            const tables = yield* sql`
              SELECT table_name FROM information_schema.tables WHERE table_schema = 'oauth'`.pipe(
              Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ tableName: Schema.String }))))
            )
            expect(tables.length).toBeGreaterThanOrEqual(8)
            const everything = (yield* Effect.forEach(tables, ({ tableName }) =>
              sql.unsafe(`SELECT row_to_json(t)::text AS row FROM oauth.${tableName} t`)
            ))
              .flat()
              .map((row) => JSON.stringify(row))
              .join("\n")

            for (const { plaintext, hash } of secrets) {
              // 32 random bytes in base64url after the kind prefix: 256 bits.
              expect(Buffer.from(plaintext.slice(4), "base64url")).toHaveLength(32)
              expect(everything).not.toContain(plaintext)
              expect(everything).not.toContain(plaintext.slice(4))
              expect(hash).toBe(createHash("sha256").update(plaintext).digest("hex"))
              expect(everything).toContain(hash)
            }
          })
        )
      })
    }
  )
}
