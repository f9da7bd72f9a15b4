import { describe, expect, it } from "@effect/vitest"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ConfigReport from "../../bootstrap/ConfigReport.js"
import * as ConfigValues from "../../bootstrap/ConfigValues.js"

const report = <A>(config: Config.Config<A>, env: Record<string, string>) =>
  Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(Object.entries(env)))).pipe(
    Effect.either,
    Effect.map(Either.mapLeft(ConfigReport.lines))
  )

describe("configuration report", () => {
  it.effect("says a required variable is not set, a secret one included", () =>
    Effect.gen(function* () {
      expect(yield* report(Config.all([Config.string("NAME"), Config.redacted("SECRET")]), {})).toEqual(
        Either.left(["NAME: is required but not set", "SECRET: is required but not set"])
      )
    })
  )

  it.effect("names only the set variable of an alternative when its value is wrong", () =>
    Effect.gen(function* () {
      const port = Config.orElseIf(ConfigValues.port("PRIMARY_PORT"), {
        if: ConfigError.isMissingDataOnly,
        orElse: () => ConfigValues.port("PORT")
      })
      expect(yield* report(port, { PORT: "x" })).toEqual(
        Either.left(["PORT: expected a port number, 0 to 65535"])
      )
      expect(yield* report(port, {})).toEqual(
        Either.left(["PRIMARY_PORT: is required but not set", "PORT: is required but not set"])
      )
    })
  )
})
