import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it, vi } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as List from "effect/List"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as JsonLogger from "../../../adapters/telemetry/JsonLogger.js"
import * as Telemetry from "../../../application/Telemetry.js"

const entry = (
  overrides: Partial<Logger.Logger.Options<unknown>> & { readonly facts?: Telemetry.Facts } = {}
): Logger.Logger.Options<unknown> => ({
  fiberId: FiberId.none,
  logLevel: LogLevel.Warning,
  message: "upstream unavailable",
  cause: Cause.empty,
  context:
    overrides.facts === undefined
      ? FiberRefs.empty()
      : FiberRefs.updateAs(FiberRefs.empty(), {
          fiberId: FiberId.none,
          fiberRef: Telemetry.currentFacts,
          value: overrides.facts
        }),
  spans: List.empty(),
  annotations: HashMap.empty(),
  date: new Date("2026-11-22T10:00:00.000Z"),
  ...overrides
})

const parse = (line: string): unknown => {
  expect(line.endsWith("\n")).toBe(true)
  expect(line.trimEnd().includes("\n")).toBe(false)
  return JSON.parse(line)
}

describe("JsonLogger.format", () => {
  it("writes one JSON object per line: level, time, message, then the request's facts with log-style keys", () => {
    const line = JsonLogger.format(
      entry({ facts: { request_id: "r-1", route: "/token", "client.id": "cli", "user.id": "u-1" } })
    )
    expect(parse(line)).toEqual({
      level: "warn",
      time: "2026-11-22T10:00:00.000Z",
      msg: "upstream unavailable",
      request_id: "r-1",
      route: "/token",
      client_id: "cli",
      user_id: "u-1"
    })
  })

  it("joins a message of several parts, adds the line's annotations, and renders a failure's cause", () => {
    const line = JsonLogger.format(
      entry({
        logLevel: LogLevel.Error,
        message: ["request failed", 42],
        annotations: HashMap.make(["family.id", "f-1"]),
        cause: Cause.die(new Error("boom"))
      })
    )
    const parsed = parse(line)
    expect(parsed).toMatchObject({ level: "error", msg: "request failed 42", family_id: "f-1" })
    expect(
      typeof parsed === "object" && parsed !== null && "error" in parsed ? String(parsed.error) : ""
    ).toContain("boom")
  })

  it.effect("is the logger of a service: lines logged inside a request carry its facts", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const capture = Logger.replace(
        Logger.defaultLogger,
        Logger.make((options) => {
          lines.push(JsonLogger.format(options))
        })
      )
      yield* Effect.logInfo("request completed").pipe(
        Effect.locally(Telemetry.currentFacts, { request_id: "r-9", status: "200" }),
        Effect.provide(capture)
      )
      expect(lines.map(parse)).toEqual([
        expect.objectContaining({ level: "info", msg: "request completed", request_id: "r-9", status: "200" })
      ])
    })
  )
})

describe("JsonLogger.layer", () => {
  const folder = mkdtempSync(join(tmpdir(), "latchkey-log-"))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))

  /** What the logger writes to stdout while `effect` runs with it, as parsed lines. */
  const stdoutOf = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const written: Array<string> = []
        const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
          written.push(String(chunk))
          return true
        })
        return { written, spy }
      }),
      ({ written }) => Effect.map(Effect.either(effect), (result) => ({ result, lines: written.map(parse) })),
      ({ spy }) => Effect.sync(() => spy.mockRestore())
    )

  it.effect("appends each line to LOG_FILE as well as stdout", () =>
    Effect.gen(function* () {
      const file = join(folder, "service.log")
      const { result } = yield* stdoutOf(
        Effect.logInfo("started").pipe(
          Effect.provide(JsonLogger.layer({ file, variable: "LOG_FILE", unopenable: "refuse" }))
        )
      )
      expect(result._tag).toBe("Right")
      expect(parse(readFileSync(file, "utf8"))).toMatchObject({ level: "info", msg: "started" })
    })
  )

  it.effect("stops on a file it cannot open, or logs on without it, saying so or not, as it is told", () =>
    Effect.gen(function* () {
      const file = join(folder, "missing-folder", "service.log")
      const refused = yield* stdoutOf(
        Effect.logInfo("started").pipe(
          Effect.provide(JsonLogger.layer({ file, variable: "LOG_FILE", unopenable: "refuse" }))
        )
      )
      expect(refused.result).toMatchObject({ _tag: "Left", left: { _tag: "LogFileError" } })
      expect(refused.lines).toEqual([])
      // A line after the layer's scope is not the layer's: its logger is gone with it.
      const warned = yield* stdoutOf(
        Effect.logInfo("started").pipe(
          Effect.provide(JsonLogger.layer({ file, variable: "AUTHSVC_LOG_FILE", unopenable: "warn" })),
          Effect.zipRight(Effect.logInfo("after the layer"))
        )
      )
      expect(warned.result._tag).toBe("Right")
      expect(warned.lines).toEqual([
        expect.objectContaining({
          level: "warn",
          msg: expect.stringMatching(
            /^AUTHSVC_LOG_FILE: cannot open .*missing-folder\/service\.log for appending: .*: lines go to stdout only$/
          )
        }),
        expect.objectContaining({ level: "info", msg: "started" })
      ])
      const quiet = yield* stdoutOf(
        Effect.logInfo("started").pipe(
          Effect.provide(JsonLogger.layer({ file, variable: "AUTHSVC_LOG_FILE", unopenable: "quiet" }))
        )
      )
      expect(quiet.result._tag).toBe("Right")
      expect(quiet.lines).toEqual([expect.objectContaining({ level: "info", msg: "started" })])
    })
  )
})
