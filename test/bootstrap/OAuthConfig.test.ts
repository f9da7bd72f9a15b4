import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, LogLevel, Option, Redacted } from "effect"
import * as ConfigReport from "../../bootstrap/ConfigReport.js"
import * as OAuthConfig from "../../bootstrap/OAuthConfig.js"

const load = (env: Record<string, string>) =>
  Effect.withConfigProvider(OAuthConfig.database, ConfigProvider.fromMap(new Map(Object.entries(env)))).pipe(
    Effect.either
  )

describe("oauth configuration", () => {
  it.effect("defaults to the embedded database under ./.latchkey/oauth at log level info", () =>
    Effect.gen(function* () {
      const config = Either.getOrThrow(yield* load({}))
      expect(Option.isNone(config.sqlUrl)).toBe(true)
      expect(config.dataDir).toBe(".latchkey/oauth")
      expect(config.logLevel).toBe(LogLevel.Info)
    })
  )

  it.effect("reads SQL_URL, LATCHKEY_DATA_DIR and LOG_LEVEL", () =>
    Effect.gen(function* () {
      const config = Either.getOrThrow(
        yield* load({
          SQL_URL: "postgres://u:p@db:5432/x",
          LATCHKEY_DATA_DIR: "/var/lib/latchkey/",
          LOG_LEVEL: "warn"
        })
      )
      expect(config.sqlUrl.pipe(Option.map(Redacted.value))).toEqual(Option.some("postgres://u:p@db:5432/x"))
      expect(config.dataDir).toBe("/var/lib/latchkey/oauth")
      expect(config.logLevel).toBe(LogLevel.Warning)
    })
  )

  it.effect("reports each wrong value on one line naming the variable, without echoing secrets", () =>
    Effect.gen(function* () {
      const result = yield* load({ SQL_URL: "mysql://root:hunter2@db/x", LOG_LEVEL: "loud" })
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) {
        const lines = ConfigReport.lines(result.left)
        expect(lines).toContain("SQL_URL: expected a postgres:// or postgresql:// URL")
        expect(lines).toContain("LOG_LEVEL: expected one of panic, fatal, error, warn, info, debug")
        expect(lines.join("\n")).not.toContain("hunter2")
      }
    })
  )
})
