import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Layer, LogLevel, Option } from "effect"
import type { OAuthConfig } from "../../../bootstrap/oauth/OAuthConfig.js"
import * as OAuthServer from "../../../bootstrap/oauth/OAuthServer.js"

describe("latchkey oauth serve", () => {
  it.live(
    "refuses to start on a database whose schema was never migrated, naming the command to run",
    () =>
      Effect.gen(function* () {
        const dataDir = mkdtempSync(join(tmpdir(), "latchkey-serve-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
        const config: OAuthConfig = {
          sqlUrl: Option.none(),
          dataDir,
          logLevel: LogLevel.Warning,
          port: 0,
          baseUrl: "http://127.0.0.1:1",
          provider: "dev",
          upstreamClientId: Option.none(),
          upstreamClientSecret: Option.none(),
          issuerUrl: Option.none(),
          introspectionToken: Option.none(),
          cliClientId: "cli",
          registerRateLimit: { max: 1, window: Duration.hours(1) },
          rateLimitHeader: Option.none()
        }
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
