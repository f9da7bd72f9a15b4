import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliProcess from "../../support/CliProcess.js"
import { freePort } from "../../support/FreePort.js"
import * as PgBouncer from "../../support/PgBouncer.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/**
 * The built oauth service behind PgBouncer in transaction mode with SQL_PREPARED_STATEMENTS off:
 * registrations, token requests and introspections from 40 clients at once run the service's
 * named statements (the client lookup, the registration, the token lookup), each unnamed here.
 */

const clients = 40
const introspectionToken = "introspection-secret-for-pooler-test-0123456789"

describe("the oauth service behind a transaction-mode pooler", () => {
  it.live.skipIf(TestDatabase.isEmbedded("server"))(
    "registers, refuses bad codes and introspects for 40 clients at once, through PgBouncer",
    () =>
      Effect.gen(function* () {
        const database = Option.getOrThrow(yield* TestDatabase.freshUrl())
        const pooled = yield* PgBouncer.inFrontOf(new URL(database))
        const port = yield* freePort
        const dataDir = mkdtempSync(join(tmpdir(), "latchkey-pooler-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
        const baseUrl = `http://127.0.0.1:${port}`
        const env = {
          LATCHKEY_DATA_DIR: dataDir,
          SQL_URL: pooled.href,
          SQL_PREPARED_STATEMENTS: "false",
          API_HOST: "127.0.0.1",
          PORT: String(port),
          BASE_URL: baseUrl,
          INTROSPECTION_TOKEN: introspectionToken,
          REGISTER_RATE_LIMIT: "100000/hour"
        }
        const migrate = yield* CliProcess.spawnCli(["oauth", "migrate"], env)
        expect(yield* migrate.exited).toBe(0)
        const service = yield* CliProcess.spawnCli(["oauth", "serve"], env)
        yield* CliProcess.waitUntilAnswering(service, `${baseUrl}/.well-known/oauth-authorization-server`)
        const registered = yield* Effect.promise(() =>
          Promise.all(
            Array.from({ length: clients }, async (_, n) => {
              const answer = await fetch(`${baseUrl}/register`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({
                  client_name: `pooled ${n}`,
                  redirect_uris: ["http://127.0.0.1/callback"],
                  token_endpoint_auth_method: "none"
                })
              })
              const body: unknown = await answer.json()
              const id =
                typeof body === "object" && body !== null && "client_id" in body ? String(body.client_id) : ""
              return { status: answer.status, id }
            })
          )
        )
        expect(registered.filter((entry) => entry.status !== 201)).toEqual([])
        const answers = yield* Effect.promise(() =>
          Promise.all(
            registered.flatMap(({ id }) => [
              fetch(`${baseUrl}/token`, {
                method: "POST",
                headers: { "content-type": "application/x-www-form-urlencoded" },
                body: new URLSearchParams({
                  grant_type: "authorization_code",
                  client_id: id,
                  code: "no-such-code",
                  redirect_uri: "http://127.0.0.1/callback",
                  code_verifier: "a".repeat(43)
                })
              }).then(async (answer) => [answer.status, ((await answer.json()) as { error?: string }).error]),
              fetch(`${baseUrl}/introspect`, {
                method: "POST",
                headers: {
                  "content-type": "application/x-www-form-urlencoded",
                  authorization: `Bearer ${introspectionToken}`
                },
                body: new URLSearchParams({ token: `no-such-token-${id}` })
              }).then(async (answer) => [
                answer.status,
                ((await answer.json()) as { active?: boolean }).active
              ])
            ])
          )
        )
        for (const [index, answer] of answers.entries()) {
          expect(answer).toEqual(index % 2 === 0 ? [400, "invalid_grant"] : [200, false])
        }
      }).pipe(Effect.scoped),
    120_000
  )
})
