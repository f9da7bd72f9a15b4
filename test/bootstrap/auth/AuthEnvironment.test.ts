import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as AuthEnvironment from "../../../bootstrap/auth/AuthEnvironment.js"
import * as ConfigFiles from "../../../bootstrap/auth/ConfigFiles.js"
import * as ConfigReport from "../../../bootstrap/ConfigReport.js"

const folder = mkdtempSync(join(tmpdir(), "latchkey-dotenv-"))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

const file = [
  "# a comment",
  "AUTHSVC_SITE_URL=https://file.example.com",
  "export AUTHSVC_JWT_AUD='from-file' # trailing comment",
  'AUTHSVC_URI_ALLOW_LIST="https://a.example.com, https://b.example.com"',
  "AUTHSVC_DISABLE_SIGNUP=true",
  "AUTHSVC_JWT_ISSUER=from-file"
].join("\n")

const named = (path: string): AuthEnvironment.Sources => ({
  file: Option.some(path),
  directory: Option.none()
})

describe("auth service environment", () => {
  it("parses the .env file with dotenv: quotes, comments and export are understood", () => {
    const variables = AuthEnvironment.merge(Option.some(file), {})
    expect(variables.get("AUTHSVC_SITE_URL")).toBe("https://file.example.com")
    expect(variables.get("AUTHSVC_JWT_AUD")).toBe("from-file")
    expect(variables.get("AUTHSVC_URI_ALLOW_LIST")).toBe("https://a.example.com, https://b.example.com")
  })

  it("lets the environment win over the file", () => {
    const variables = AuthEnvironment.merge(Option.some(file), {
      AUTHSVC_SITE_URL: "https://env.example.com",
      PORT: "9000",
      UNSET: undefined
    })
    expect(variables.get("AUTHSVC_SITE_URL")).toBe("https://env.example.com")
    expect(variables.get("AUTHSVC_DISABLE_SIGNUP")).toBe("true")
    expect(variables.get("PORT")).toBe("9000")
    expect(variables.has("UNSET")).toBe(false)
  })

  it("counts an empty value as unset, and an empty environment value hides the file's", () => {
    const variables = AuthEnvironment.merge(Option.some(`${file}\nAUTHSVC_API_HOST=`), {
      AUTHSVC_JWT_ISSUER: ""
    })
    expect(variables.has("AUTHSVC_API_HOST")).toBe(false)
    expect(variables.has("AUTHSVC_JWT_ISSUER")).toBe(false)
  })

  it.effect("builds a provider that Config reads names from exactly as written", () =>
    Effect.gen(function* () {
      const variables = AuthEnvironment.merge(Option.some(file), { AUTHSVC_JWT_AUD: "from-env" })
      const aud = yield* Effect.withConfigProvider(
        Config.string("AUTHSVC_JWT_AUD"),
        AuthEnvironment.provider(variables)
      )
      expect(aud).toBe("from-env")
    })
  )

  it.effect("reads the file --config names in place of .env; the environment still wins", () =>
    Effect.gen(function* () {
      const path = join(folder, "present.env")
      writeFileSync(path, file)
      const variables = yield* AuthEnvironment.loadFrom(named(path), { AUTHSVC_JWT_AUD: "env" })
      expect(variables.get("AUTHSVC_SITE_URL")).toBe("https://file.example.com")
      expect(variables.get("AUTHSVC_JWT_AUD")).toBe("env")
    })
  )

  it.effect("refuses a file --config names that does not exist, where a missing .env is none", () =>
    Effect.gen(function* () {
      const path = join(folder, "absent.env")
      const result = yield* Effect.either(AuthEnvironment.loadFrom(named(path), {}))
      expect(Either.mapLeft(result, ConfigReport.lines)).toEqual(
        Either.left([`${path}: cannot be read (it does not exist)`])
      )
      expect(yield* ConfigFiles.optional(path)).toEqual(Option.none())
    })
  )

  it.effect("reports a file that exists but cannot be read on one line", () =>
    Effect.gen(function* () {
      const path = join(folder, "directory.env")
      mkdirSync(path)
      const result = yield* Effect.either(AuthEnvironment.loadFrom(named(path), {}))
      expect(Either.mapLeft(result, ConfigReport.lines)).toEqual(
        Either.left([`${path}: cannot be read (it is a directory)`])
      )
      const optional = yield* Effect.either(ConfigFiles.optional(path))
      expect(Either.mapLeft(optional, ConfigReport.lines)).toEqual(
        Either.left([`${path}: cannot be read (it is a directory)`])
      )
    })
  )

  it.effect(
    "lays a --config-dir's files over the file, a later name over an earlier, under the environment",
    () =>
      Effect.gen(function* () {
        const path = join(folder, "base.env")
        writeFileSync(path, file)
        const directory = join(folder, "config.d")
        mkdirSync(directory)
        writeFileSync(
          join(directory, "10-site.env"),
          "AUTHSVC_SITE_URL=https://dir.example.com\nAUTHSVC_JWT_EXP=600"
        )
        writeFileSync(join(directory, "20-later.json"), JSON.stringify({ AUTHSVC_JWT_EXP: "900" }))
        const variables = yield* AuthEnvironment.loadFrom(
          { file: Option.some(path), directory: Option.some(directory) },
          { AUTHSVC_JWT_AUD: "env", AUTHSVC_DISABLE_SIGNUP: "false" }
        )
        expect(variables.get("AUTHSVC_SITE_URL")).toBe("https://dir.example.com")
        expect(variables.get("AUTHSVC_JWT_EXP")).toBe("900")
        expect(variables.get("AUTHSVC_JWT_AUD")).toBe("env")
        expect(variables.get("AUTHSVC_DISABLE_SIGNUP")).toBe("false")
        expect(variables.get("AUTHSVC_JWT_ISSUER")).toBe("from-file")
      })
  )

  it.effect("reads the sources the running command was given (ConfigSources)", () =>
    Effect.gen(function* () {
      const path = join(folder, "given.env")
      writeFileSync(path, "LATCHKEY_SOURCES_PROBE=given")
      const variables = yield* Effect.provideService(
        AuthEnvironment.load,
        AuthEnvironment.ConfigSources,
        named(path)
      )
      expect(variables.get("LATCHKEY_SOURCES_PROBE")).toBe("given")
    })
  )
})
