import { readdirSync, readFileSync } from "node:fs"
import { getPriority } from "node:os"
import { describe, expect, it } from "@effect/vitest"
import * as Argon2 from "@node-rs/argon2"
import * as Bcrypt from "@node-rs/bcrypt"
import * as Effect from "effect/Effect"
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
