import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { Piscina } from "piscina"
import type * as FirebaseScrypt from "./FirebaseScrypt.js"

/** What a hashing thread does (HashingThread.mjs): argon2id hashes, argon2, bcrypt and Firebase checks. */
export type Task =
  | {
      readonly kind: "argon2.hash"
      readonly password: string | Uint8Array
      readonly options: Readonly<Record<string, number>>
    }
  | { readonly kind: "argon2.verify"; readonly password: string; readonly stored: string }
  | { readonly kind: "bcrypt.verify"; readonly password: string; readonly stored: string }
  | {
      readonly kind: "fbscrypt.verify"
      readonly password: string
      readonly hash: FirebaseScrypt.FirebaseHash
    }

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
  /** Whether `password` matches a Firebase scrypt hash. */
  readonly verifyFirebase: (password: string, hash: FirebaseScrypt.FirebaseHash) => Effect.Effect<boolean>
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

/** The file each thread runs. */
export const threadFile = new URL("./HashingThread.mjs", import.meta.url)

/**
 * A hashing thread failed instead of answering: it ended while it ran the task (a crash, the
 * thread killed), or no thread could start (its file gone while `dist/` is rebuilt, say). A
 * defect, like `HashingGate.HashingBusy`: a server that hashes passwords counts it among the
 * failures its `isUnavailable` recognises, so the request gets a 503 with `Retry-After`, and the
 * process goes on; the next task starts a new thread, so hashing recovers once the cause is gone.
 */
export class HashingUnavailable extends Schema.TaggedError<HashingUnavailable>()("HashingUnavailable", {
  reason: Schema.String
}) {
  override get message() {
    return `password hashing thread failed: ${this.reason}`
  }
}

/** What went wrong, in a line: an abort carries its reason as `cause`. */
const reasonOf = (error: unknown): string =>
  error instanceof Error
    ? error.cause instanceof Error
      ? error.cause.message
      : error.message
    : String(error)

/** A thread answered with something its task never returns: the thread file and this one disagree. */
const unexpected = (kind: Task["kind"], value: unknown) =>
  Effect.die(new Error(`hashing thread answered ${typeof value} to ${kind}`))

/**
 * Password hashing on threads of its own (worker threads, `threads` at most), each at a lower
 * OS priority on Linux, instead of libuv's pool: when hashing and requests want more CPU than
 * the machine has, the event loop wins, so a storm of sign-ins slows sign-ins rather than every
 * other request (docs/performance.md, the mixed run). The caller bounds the work in flight
 * (HashingGate) to `tasksPerThread` a thread; the threads start with the first task and end
 * after a minute without one. A task whose thread fails dies with `HashingUnavailable`.
 * `file` is the thread's code (`threadFile`; tests give one that fails).
 */
export const make = (
  threads: number,
  file: URL = threadFile
): Effect.Effect<HashingThreads, never, Scope.Scope> =>
  Effect.gen(function* () {
    const log = Runtime.runFork(yield* Effect.runtime<never>())
    /** Tasks handed to the pool and not yet answered, each abortable. */
    const pending = new Set<AbortController>()
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new Piscina({
          filename: file.href,
          minThreads: 0,
          maxThreads: threads,
          concurrentTasksPerWorker: tasksPerThread,
          idleTimeout: idleTimeoutMillis
        })
        // The pool tells of a thread that failed without a task of its own, most often one that
        // could not start; unheard, the event would end the process. The tasks waiting for a
        // thread then wait for ever when no other thread runs to take them: they fail now, and
        // the next task tries a new thread.
        pool.on("error", (error: unknown) => {
          log(
            Effect.logError("password hashing thread failed").pipe(
              Effect.annotateLogs("reason", reasonOf(error))
            )
          )
          if (pool.threads.length === 0) for (const task of pending) task.abort(error)
        })
        return pool
      }),
      (pool) => Effect.promise(() => pool.destroy())
    )
    const run = (task: Task) =>
      Effect.suspend(() => {
        const abort = new AbortController()
        pending.add(abort)
        return Effect.tryPromise({
          try: (): Promise<unknown> => pool.run(task, { signal: abort.signal }),
          catch: (error) => new HashingUnavailable({ reason: reasonOf(error) })
        }).pipe(Effect.orDie, Effect.ensuring(Effect.sync(() => pending.delete(abort))))
      })
    const hashing: HashingThreads = {
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
        ),
      verifyFirebase: (password, hash) =>
        Effect.flatMap(run({ kind: "fbscrypt.verify", password, hash }), (value) =>
          typeof value === "boolean" ? Effect.succeed(value) : unexpected("fbscrypt.verify", value)
        )
    }
    return hashing
  })
