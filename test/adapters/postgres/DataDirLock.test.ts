import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as DataDirLock from "../../../adapters/postgres/DataDirLock.js"

/** A data folder, removed with the scope. */
const folder = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "latchkey-lock-"))),
  (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
)

/** The `DataDirInUse` an attempt failed with, if it failed with one. */
const refusal = (exit: Exit.Exit<void, DataDirLock.DataDirInUse>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined

/** Whether `dir` can be locked right now by a taker of its own (released at once). */
const lockable = (dir: string) =>
  Effect.map(Effect.exit(Effect.scoped(DataDirLock.acquire(dir))), Exit.isSuccess)

describe("DataDirLock", () => {
  it.scoped("a held folder refuses a second taker, naming the holder, until the holder lets go", () =>
    Effect.gen(function* () {
      const dir = yield* folder
      const since = Date.now()
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* DataDirLock.acquire(dir)
          const refused = refusal(yield* Effect.exit(Effect.scoped(DataDirLock.acquire(dir))))
          expect(refused?.dir).toBe(dir)
          const holder = Option.getOrThrow(refused?.holder ?? Option.none())
          expect(holder.pid).toBe(process.pid)
          expect(holder.command.length).toBeGreaterThan(0)
          expect(Date.parse(holder.since)).toBeGreaterThanOrEqual(since - 1_000)
          expect(existsSync(join(dir, DataDirLock.fileName))).toBe(true)
        })
      )
      // Let go: the socket file is gone, and the next taker gets the folder.
      expect(existsSync(join(dir, DataDirLock.fileName))).toBe(false)
      expect(yield* lockable(dir)).toBe(true)
    })
  )

  it.scoped("the lock of a process killed outright is taken over", () =>
    Effect.gen(function* () {
      const dir = yield* folder
      // A process that takes a lock as this module does, then dies without a chance to let go.
      const killed = spawnSync(process.execPath, [
        "-e",
        `require("node:net").createServer().listen(${JSON.stringify(join(dir, DataDirLock.fileName))}, () => process.kill(process.pid, "SIGKILL"))`
      ])
      expect(killed.signal).toBe("SIGKILL")
      expect(existsSync(join(dir, DataDirLock.fileName))).toBe(true)
      yield* DataDirLock.acquire(dir)
      // Taken for real: this process now holds it.
      const refused = refusal(yield* Effect.exit(Effect.scoped(DataDirLock.acquire(dir))))
      expect(Option.map(refused?.holder ?? Option.none(), (holder) => holder.pid)).toEqual(
        Option.some(process.pid)
      )
    })
  )

  it.scoped("a file left in the lock's place is no lock", () =>
    Effect.gen(function* () {
      const dir = yield* folder
      writeFileSync(join(dir, DataDirLock.fileName), "left over")
      expect(yield* lockable(dir)).toBe(true)
    })
  )

  it.scoped("a live holder that says nothing still holds the folder", () =>
    Effect.gen(function* () {
      const dir = yield* folder
      const silent = yield* Effect.acquireRelease(
        Effect.async<Net.Server>((resume) => {
          const server = Net.createServer(() => {})
          server.listen(join(dir, DataDirLock.fileName), () => resume(Effect.succeed(server)))
        }),
        (server) => Effect.sync(() => server.close())
      )
      expect(silent.listening).toBe(true)
      const refused = refusal(yield* Effect.exit(Effect.scoped(DataDirLock.acquire(dir))))
      expect(refused?.holder).toEqual(Option.none())
    })
  )

  it.scoped("a folder whose path is too long for a socket goes on unlocked, with a warning", () =>
    Effect.gen(function* () {
      const dir = join(yield* folder, "a-folder-name-long-enough".repeat(5))
      mkdirSync(dir)
      const lines: Array<string> = []
      const capture = Logger.make(({ logLevel, message }) => {
        lines.push(`${logLevel.label} ${String(message)}`)
      })
      yield* DataDirLock.acquire(dir).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain("WARN")
      expect(lines[0]).toContain("cannot lock")
      expect(existsSync(join(dir, DataDirLock.fileName))).toBe(false)
    })
  )
})
