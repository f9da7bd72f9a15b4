import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as CliProcess from "../../support/CliProcess.js"
import { freePort } from "../../support/FreePort.js"

/**
 * The oauth service's embedded folder, like the auth service's (test/e2e/auth/DataDirInUse):
 * one process at a time, a second one refused with a line naming the first.
 */

const variables = (dataDir: string, port: number) => ({
  LATCHKEY_DATA_DIR: dataDir,
  API_HOST: "127.0.0.1",
  PORT: String(port),
  BASE_URL: `http://127.0.0.1:${port}`
})

describe("one process per embedded data folder (oauth)", () => {
  it.live(
    "a second server and an operator command on a served folder are refused, naming the server",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* Effect.acquireRelease(
          Effect.sync(() => mkdtempSync(join(tmpdir(), "latchkey-datadir-e2e-"))),
          (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
        )
        const port = yield* freePort
        const migrate = yield* CliProcess.spawnCli(["oauth", "migrate"], variables(dataDir, port))
        expect(yield* migrate.exited, migrate.lines().join("\n")).toBe(0)
        const first = yield* CliProcess.spawnCli(["oauth", "serve"], variables(dataDir, port))
        const discovery = `http://127.0.0.1:${port}/.well-known/oauth-authorization-server`
        yield* CliProcess.waitUntilAnswering(first, discovery)

        for (const args of [
          ["oauth", "serve"],
          ["oauth", "clients", "list"]
        ]) {
          const refused = yield* CliProcess.spawnCli(args, variables(dataDir, yield* freePort))
          expect(yield* refused.exited, refused.lines().join("\n")).toBe(1)
          const line = refused.lines().find((line) => line.includes("is open in process")) ?? ""
          expect(line, refused.lines().join("\n")).toContain(
            `process ${first.pid} (latchkey oauth serve, since `
          )
          expect(line).toContain("or set SQL_URL to a PostgreSQL server")
        }
        expect(first.hasExited()).toBe(false)
        expect((yield* Effect.promise(() => fetch(discovery))).status).toBe(200)
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})
