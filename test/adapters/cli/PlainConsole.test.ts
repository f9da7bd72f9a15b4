import { describe, expect, it } from "@effect/vitest"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as PlainConsole from "../../../adapters/cli/PlainConsole.js"

const esc = String.fromCharCode(27)

describe("PlainConsole", () => {
  it("colours a terminal only, and not when NO_COLOR is set to anything but empty", () => {
    expect(PlainConsole.colours(true, undefined)).toBe(true)
    expect(PlainConsole.colours(true, "")).toBe(true)
    expect(PlainConsole.colours(true, "1")).toBe(false)
    expect(PlainConsole.colours(false, undefined)).toBe(false)
    expect(PlainConsole.colours(undefined, undefined)).toBe(false)
  })

  it.effect("takes the colour codes out of what goes to a stream that may not have them", () =>
    Effect.gen(function* () {
      const written: Array<readonly [string, string]> = []
      const base = yield* Effect.console
      const recording: Console.Console = {
        ...base,
        log: (...parts) => Effect.sync(() => void written.push(["out", parts.join(" ")])),
        error: (...parts) => Effect.sync(() => void written.push(["err", parts.join(" ")]))
      }
      const coloured = `${esc}[0;1m${esc}[0;37;1mUSAGE${esc}[0m`
      const plain = PlainConsole.make(recording, { stdout: false, stderr: true })
      yield* Effect.withConsole(Effect.zipRight(Console.log(coloured), Console.error(coloured)), plain)
      expect(written).toEqual([
        ["out", "USAGE"],
        ["err", coloured]
      ])
    })
  )
})
