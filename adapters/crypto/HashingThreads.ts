import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { Piscina } from "piscina"

/** What a hashing thread does (HashingThread.mjs): argon2id hashes, argon2 and bcrypt checks. */
export type Task =
  | {
      readonly kind: "argon2.hash"
      readonly password: string | Uint8Array
      readonly options: Readonly<Record<string, number>>
    }
  | { readonly kind: "argon2.verify"; readonly password: string; readonly stored: string }
  | { readonly kind: "bcrypt.verify"; readonly password: string; readonly stored: string }

export interface HashingThreads {
  /** The PHC string of an argon2 hash made with `options`. */
  readonly hash: (
    password: string | Uint8Array,
    options: Readonly<Record<string, number>>
  ) => Effect.Effect<string>
  /** Whether `password` matches an argon2 hash; undefined when the hash cannot be decoded. */
  readonly verifyArgon2: (password: string, stored: string) => Effect.Effect<boolean | undefined>
  /** Whether `password` matches a bcrypt hash; false for one that cannot be parsed. */
  readonly verifyBcrypt: (password: string, stored: string) => Effect.Effect<boolean>
}

/**
 * Tasks handed to a thread at once: the one it runs and the next, which it starts the moment
 * the last ends instead of waiting for a busy event loop to hear of the end and hand it over
 * (on the bench, 8% more sign-ins and sign-ups a second on two cores). A waiting task holds no
 * hashing memory: a thread runs one at a time.
 */
export const tasksPerThread = 2

/** Threads left running this long without a task end, so that an idle service holds none. */
const idleTimeoutMillis = 60_000

const thread = new URL("./HashingThread.mjs", import.meta.url).href

/** A thread answered with something its task never returns: the thread file and this one disagree. */
const unexpected = (kind: Task["kind"], value: unknown) =>
  Effect.die(new Error(`hashing thread answered ${typeof value} to ${kind}`))

/**
 * Password hashing on threads of its own (worker threads, `threads` at most), each at a lower
 * OS priority on Linux, instead of libuv's pool: when hashing and requests want more CPU than
 * the machine has, the event loop wins, so a storm of sign-ins slows sign-ins rather than every
 * other request (docs/performance.md, the mixed run). The caller bounds the work in flight
 * (HashingGate) to `tasksPerThread` a thread; the threads start with the first task and end
 * after a minute without one.
 */
export const make = (threads: number): Effect.Effect<HashingThreads, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(
        () =>
          new Piscina({
            filename: thread,
            minThreads: 0,
            maxThreads: threads,
            concurrentTasksPerWorker: tasksPerThread,
            idleTimeout: idleTimeoutMillis
          })
      ),
      (pool) => Effect.promise(() => pool.destroy())
    ),
    (pool) => {
      const run = (task: Task) => Effect.promise((): Promise<unknown> => pool.run(task))
      return {
        hash: (password, options) =>
          Effect.flatMap(run({ kind: "argon2.hash", password, options }), (value) =>
            typeof value === "string" ? Effect.succeed(value) : unexpected("argon2.hash", value)
          ),
        verifyArgon2: (password, stored) =>
          Effect.flatMap(run({ kind: "argon2.verify", password, stored }), (value) =>
            typeof value === "boolean"
              ? Effect.succeed(value)
              : value === null
                ? Effect.succeed(undefined)
                : unexpected("argon2.verify", value)
          ),
        verifyBcrypt: (password, stored) =>
          Effect.flatMap(run({ kind: "bcrypt.verify", password, stored }), (value) =>
            typeof value === "boolean" ? Effect.succeed(value) : unexpected("bcrypt.verify", value)
          )
      }
    }
  )
