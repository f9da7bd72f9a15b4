import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { getPriority, tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import * as Argon2 from "@node-rs/argon2"
import * as Bcrypt from "@node-rs/bcrypt"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HashingThreads from "../../../adapters/crypto/HashingThreads.js"

const argon2id = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 }

/** The nice value of every thread of this process, from /proc (Linux). */
const niceOfThreads = (): ReadonlyArray<number> =>
  readdirSync("/proc/self/task").flatMap((tid) => {
    try {
      // Fields after the command name, which is in parentheses and may hold spaces: nice is the 19th field.
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
      return [Number(fields[16])]
    } catch {
      // A thread that ended between the listing and the read.
      return []
    }
  })

describe("HashingThreads", () => {
  it.scoped("hashes and verifies argon2 and bcrypt on its threads", () =>
    Effect.gen(function* () {
      const threads = yield* HashingThreads.make(2)
      const stored = yield* threads.hash("correct horse", argon2id)
      expect(stored.startsWith("$argon2id$v=19$m=19456,t=2,p=1$")).toBe(true)
      expect(yield* Effect.promise(() => Argon2.verify(stored, "correct horse"))).toBe(true)
      expect(yield* threads.verifyArgon2("correct horse", stored)).toBe(true)
      expect(yield* threads.verifyArgon2("wrong horse", stored)).toBe(false)
      expect(yield* threads.verifyArgon2("correct horse", "$argon2id$not-a-hash")).toBeUndefined()

      const bcrypt = yield* Effect.promise(() => Bcrypt.hash("correct horse", { cost: 4 }))
      expect(yield* threads.verifyBcrypt("correct horse", bcrypt)).toBe(true)
      expect(yield* threads.verifyBcrypt("wrong horse", bcrypt)).toBe(false)
      expect(yield* threads.verifyBcrypt("correct horse", "$2b$04$short")).toBe(false)

      const bytes = yield* threads.hash(new Uint8Array([1, 2, 3]), argon2id)
      expect(yield* Effect.promise(() => Argon2.verify(bytes, new Uint8Array([1, 2, 3])))).toBe(true)
    })
  )

  it.runIf(process.platform === "linux")(
    "hashes at a lower priority than the event loop, which keeps its own, and ends its threads with its scope",
    () =>
      Effect.runPromise(
        Effect.gen(function* () {
          const before = getPriority(0)
          const lowered = niceOfThreads().filter((nice) => nice === before + 10).length
          yield* Effect.scoped(
            Effect.gen(function* () {
              const threads = yield* HashingThreads.make(1)
              yield* threads.hash("correct horse", argon2id)
              expect(niceOfThreads().filter((nice) => nice === before + 10)).toHaveLength(lowered + 1)
              expect(getPriority(0)).toBe(before)
            })
          )
          expect(niceOfThreads().filter((nice) => nice === before + 10)).toHaveLength(lowered)
        })
      )
  )
})

/** A thread file of the test's own: the real one, except that the password "crash" ends the thread. */
const crashingThread = (folder: string): URL => {
  const file = join(folder, "CrashingThread.mjs")
  writeFileSync(
    file,
    [
      `import run from ${JSON.stringify(HashingThreads.threadFile.href)}`,
      "export default function (task) {",
      '  if (task.password === "crash") process.exit(70)',
      "  return run(task)",
      "}"
    ].join("\n")
  )
  return pathToFileURL(file)
}

/** A temporary folder, removed with the scope. */
const folder = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "latchkey-hashing-"))),
  (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
)

/** The reason of the `HashingUnavailable` a call died with, if it died with one. */
const unavailableReason = <A>(exit: Exit.Exit<A>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const defect = [...Cause.defects(exit.cause)].find((d) => d instanceof HashingThreads.HashingUnavailable)
  return defect instanceof HashingThreads.HashingUnavailable ? defect.reason : undefined
}

describe("HashingThreads when a thread fails", () => {
  it.scoped(
    "a task whose thread ends dies with HashingUnavailable, and the next task gets a new thread",
    () =>
      Effect.gen(function* () {
        const threads = yield* HashingThreads.make(1, crashingThread(yield* folder))
        const crashed = yield* Effect.exit(threads.hash("crash", argon2id))
        expect(unavailableReason(crashed)).toContain("exited with code: 70")
        const stored = yield* threads.hash("correct horse", argon2id)
        expect(yield* threads.verifyArgon2("correct horse", stored)).toBe(true)
      })
  )

  it.scoped(
    "tasks fail with HashingUnavailable while no thread can start, and succeed once its file is back",
    () =>
      Effect.gen(function* () {
        const dir = yield* folder
        const missing = pathToFileURL(join(dir, "Missing.mjs"))
        const threads = yield* HashingThreads.make(2, missing)
        // Without the pool's error handled, the event would end the test process, and the tasks
        // would wait for a thread for ever (the timeout turns that into a failure here).
        const exits = yield* Effect.all(
          [threads.hash("correct horse", argon2id), threads.verifyBcrypt("correct horse", "$2b$04$x")],
          { concurrency: "unbounded" }
        ).pipe(Effect.exit, Effect.timeout("20 seconds"))
        expect(unavailableReason(exits)).toContain("Missing.mjs")

        writeFileSync(join(dir, "Missing.mjs"), readFileSync(crashingThread(dir), "utf8"))
        const stored = yield* threads.hash("correct horse", argon2id)
        expect(yield* threads.verifyArgon2("correct horse", stored)).toBe(true)
      })
  )
})
