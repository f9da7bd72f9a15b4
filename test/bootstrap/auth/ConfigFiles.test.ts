import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ConfigFiles from "../../../bootstrap/auth/ConfigFiles.js"
import * as ConfigReport from "../../../bootstrap/ConfigReport.js"

const folder = mkdtempSync(join(tmpdir(), "latchkey-config-dir-"))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

/** A directory of `files` (name → text) under the test's folder. */
const directoryOf = (name: string, files: Record<string, string>) => {
  const path = join(folder, name)
  mkdirSync(path)
  for (const [file, text] of Object.entries(files)) writeFileSync(join(path, file), text)
  return path
}

describe("a --config-dir, as Supabase Auth reads one", () => {
  it("reads the .env and .json files by name, passing over the rest", () => {
    expect(
      ConfigFiles.filesOf(["b.env", "README", "a.json", "c.yaml", ".env", "A.env", "z.env.bak"])
    ).toEqual([".env", "A.env", "a.json", "b.env"])
  })

  it("reads only the JSON where x.env is followed by x.json, and both where a name sorts between", () => {
    expect(ConfigFiles.filesOf(["x.json", "x.env", "y.env", "y.json"])).toEqual(["x.json", "y.json"])
    expect(ConfigFiles.filesOf(["x.json", "x.env", "x.env.json"])).toEqual(["x.env", "x.env.json", "x.json"])
    expect(ConfigFiles.filesOf([".json", ".env"])).toEqual([".json"])
  })

  it.effect("answers each file's variables in order, subdirectories passed over", () =>
    Effect.gen(function* () {
      const path = directoryOf("ordered", {
        "2.json": JSON.stringify({ AUTHSVC_SITE_URL: "https://two.example.com" }),
        "1.env": "export AUTHSVC_SITE_URL='https://one.example.com' # a comment\nAUTHSVC_JWT_EXP=60"
      })
      mkdirSync(join(path, "nested.env"))
      expect(yield* ConfigFiles.directory(path)).toEqual([
        { AUTHSVC_SITE_URL: "https://one.example.com", AUTHSVC_JWT_EXP: "60" },
        { AUTHSVC_SITE_URL: "https://two.example.com" }
      ])
    })
  )

  it.effect("refuses a JSON file that is not one object of strings, naming it", () =>
    Effect.gen(function* () {
      for (const [name, text] of [
        ["number", JSON.stringify({ AUTHSVC_JWT_EXP: 60 })],
        ["array", "[]"],
        ["broken", "{"]
      ] as const) {
        const path = directoryOf(name, { "settings.json": text })
        const result = yield* Effect.either(ConfigFiles.directory(path))
        expect(Either.mapLeft(result, ConfigReport.lines)).toEqual(
          Either.left([`${join(path, "settings.json")}: expected a JSON object whose values are strings`])
        )
      }
    })
  )

  it.effect("refuses a directory that cannot be read, naming it", () =>
    Effect.gen(function* () {
      const absent = join(folder, "absent")
      const missing = yield* Effect.either(ConfigFiles.directory(absent))
      expect(Either.mapLeft(missing, ConfigReport.lines)).toEqual(
        Either.left([`${absent}: cannot be read (it does not exist)`])
      )
      const file = join(folder, "a-file")
      writeFileSync(file, "")
      const notDirectory = yield* Effect.either(ConfigFiles.directory(file))
      expect(Either.mapLeft(notDirectory, ConfigReport.lines)).toEqual(
        Either.left([`${file}: cannot be read (it is not a directory)`])
      )
    })
  )
})
