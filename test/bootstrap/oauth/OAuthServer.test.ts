import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as OAuthConfig from "../../../bootstrap/oauth/OAuthConfig.js"
import * as OAuthServer from "../../../bootstrap/oauth/OAuthServer.js"

describe("latchkey oauth serve", () => {
  it.live(
    "refuses to start on a database whose schema was never migrated, naming the command to run",
    () =>
      Effect.gen(function* () {
        const dataDir = mkdtempSync(join(tmpdir(), "latchkey-serve-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
        const config = yield* Effect.withConfigProvider(
          OAuthConfig.server,
          ConfigProvider.fromMap(
            new Map([
              ["LATCHKEY_DATA_DIR", dataDir],
              ["LOG_LEVEL", "warn"],
              ["PORT", "0"],
              ["BASE_URL", "http://127.0.0.1:1"]
            ])
          )
        )
        const exit = yield* Effect.exit(Effect.scoped(Layer.build(OAuthServer.serve(config))))
        expect(Exit.isFailure(exit)).toBe(true)
        if (Exit.isFailure(exit)) {
          const message = String(exit.cause)
          expect(message).toContain("SchemaNotReady")
          expect(message).toContain("latchkey oauth migrate")
        }
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
