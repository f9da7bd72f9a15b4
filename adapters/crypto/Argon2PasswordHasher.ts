import { randomBytes } from "node:crypto"
import * as Argon2 from "@node-rs/argon2"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { PasswordHasher, type Verification } from "../../application/ports/PasswordHasher.js"
import * as Telemetry from "../../application/Telemetry.js"
import * as FirebaseScrypt from "./FirebaseScrypt.js"
import * as HashingGate from "./HashingGate.js"
import * as HashingThreads from "./HashingThreads.js"

/**
 * OWASP's argon2id baseline (19 MiB, 2 iterations, 1 lane); parameters travel inside each PHC
 * string, so raising them here makes every older hash report `needsRehash` at its next sign-in.
 */
// `2` is Algorithm.Argon2id; the package exports it as a const enum, which isolated modules cannot read.
const current = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 }
/** The package's defaults, which `current` keeps: a 32-byte hash and a 16-byte salt. */
const outputLen = 32
const saltLen = 16
/** Version.V0x13 (argon2 1.3), under the same const-enum constraint as `current.algorithm`. */
const version13 = 1

const mismatch: Verification = { matches: false, needsRehash: false }

/**
 * Where a stored hash comes from. Ours are argon2id; Supabase Auth stores bcrypt (`$2a$` from
 * Go, `$2b$` and `$2y$` from hashes it imported in turn) and imports Firebase's (`$fbscrypt$`).
 * `$2x$` is left out on purpose: it names PHP's old sign-extension bug, which the bcrypt package
 * does not reproduce, so such a hash would be checked with the wrong algorithm.
 */
const formatOf = (stored: string): "argon2" | "bcrypt" | "fbscrypt" | undefined =>
  stored.startsWith("$argon2")
    ? "argon2"
    : /^\$2[aby]\$/.test(stored)
      ? "bcrypt"
      : FirebaseScrypt.isFirebaseHash(stored)
        ? "fbscrypt"
        : undefined

/**
 * Whether an argon2 hash may be imported: well formed, argon2i or argon2id of version 19, and
 * within the bounds Supabase Auth puts on one (at most 1 GiB, 20 passes, 16 lanes), so that no
 * sign-in against it can hold a hashing thread for minutes or ask for more memory than a machine
 * has. Supabase Auth refuses argon2d, made for uses without secrets, and older versions too.
 */
const importableArgon2 = (stored: string): boolean => {
  const match = /^\$argon2(?:id|i)\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.exec(
    stored
  )
  if (match === null) return false
  const [memory, passes, lanes] = match.slice(1).map(Number)
  return (
    memory !== undefined &&
    passes !== undefined &&
    lanes !== undefined &&
    memory <= 1024 * 1024 &&
    passes >= 1 &&
    passes <= 20 &&
    lanes >= 1 &&
    lanes <= 16
  )
}

/** Whether an argon2 hash was made with less than `current` asks (or cannot be read at all). */
const weakerThanCurrent = (stored: string): boolean => {
  try {
    const made = Argon2.parseOptions(stored)
    return (
      made.algorithm !== current.algorithm ||
      made.version !== version13 ||
      made.memoryCost < current.memoryCost ||
      made.timeCost < current.timeCost ||
      made.outputLen < outputLen ||
      made.saltLen < saltLen
    )
  } catch {
    return true
  }
}

/**
 * A stored hash nothing here can read: a mismatch, not a crash of the request. Logged at debug
 * with its scheme only (`$fbscrypt$`, say), which says what an import brought without
 * revealing anything of the hash.
 */
const unreadable = (stored: string): Effect.Effect<Verification> =>
  Effect.as(
    Effect.logDebug("stored password hash is in a format this service does not read").pipe(
      Effect.annotateLogs("hash_scheme", /^\$[A-Za-z0-9-]{1,16}\$/.exec(stored)?.[0] ?? "none")
    ),
    mismatch
  )

/**
 * The hasher, its native work run on `threads` and admitted through `gate`. The dummy hash is
 * made here, once: a hash of 32 random bytes nobody knows, with the current parameters, so
 * checking a password against it costs what checking against a fresh hash does.
 */
export const make = (
  gate: HashingGate.HashingGate,
  threads: HashingThreads.HashingThreads
): Effect.Effect<Context.Tag.Service<typeof PasswordHasher>> =>
  Effect.gen(function* () {
    const dummy = yield* gate.run(threads.hash(randomBytes(32), current))

    /** Undefined when the stored hash cannot be decoded. */
    const verifyArgon2 = (password: Redacted.Redacted<string>, stored: string) =>
      gate.run(threads.verifyArgon2(Redacted.value(password), stored))

    return {
      hash: Telemetry.fn("Argon2PasswordHasher.hash")((password: Redacted.Redacted<string>) =>
        gate.run(threads.hash(Redacted.value(password), current))
      ),
      verify: Telemetry.fn("Argon2PasswordHasher.verify")(
        (password: Redacted.Redacted<string>, stored: string): Effect.Effect<Verification> => {
          switch (formatOf(stored)) {
            case "argon2":
              return Effect.flatMap(verifyArgon2(password, stored), (matches) =>
                matches === undefined
                  ? unreadable(stored)
                  : Effect.succeed({ matches, needsRehash: matches && weakerThanCurrent(stored) })
              )
            case "bcrypt":
              // The package answers false, without rejecting, for a bcrypt hash it cannot parse.
              return Effect.map(
                gate.run(threads.verifyBcrypt(Redacted.value(password), stored)),
                (matches) => ({ matches, needsRehash: matches })
              )
            case "fbscrypt": {
              const firebase = FirebaseScrypt.parse(stored)
              // Like bcrypt's, replaced by an argon2id hash at the sign-in that matched.
              return firebase === undefined
                ? unreadable(stored)
                : Effect.map(
                    gate.run(threads.verifyFirebase(Redacted.value(password), firebase)),
                    (matches) => ({ matches, needsRehash: matches })
                  )
            }
            case undefined:
              return unreadable(stored)
          }
        },
        // The scheme, never the hash: how many sign-ins still meet imported bcrypt hashes.
        (_password, stored) => ({ "password.scheme": formatOf(stored) ?? "unknown" })
      ),
      verifyDummy: Telemetry.fn("Argon2PasswordHasher.verifyDummy")((password: Redacted.Redacted<string>) =>
        Effect.asVoid(verifyArgon2(password, dummy))
      ),
      canVerify: (stored: string) =>
        Effect.sync(() => {
          switch (formatOf(stored)) {
            case "argon2":
              return importableArgon2(stored)
            case "bcrypt":
              // A cost of 4 to 31 and the 53 characters of salt and digest bcrypt writes.
              return /^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/.test(stored)
            case "fbscrypt":
              return FirebaseScrypt.parse(stored) !== undefined
            case undefined:
              return false
          }
        })
    }
  })

/**
 * The production hasher: `options.concurrency` hashing threads (`HashingGate.defaultConcurrency`
 * unless set), and a gate that admits `HashingThreads.tasksPerThread` hashings a thread and
 * queues `options.queue` more (`HashingGate.Options`, defaults there).
 */
export const layer = (options: HashingGate.Options = {}): Layer.Layer<PasswordHasher> =>
  Layer.scoped(
    PasswordHasher,
    Effect.gen(function* () {
      const threadCount = options.concurrency ?? HashingGate.defaultConcurrency()
      const gate = yield* HashingGate.make({
        concurrency: threadCount * HashingThreads.tasksPerThread,
        queue: options.queue ?? HashingGate.queuePerSlot * threadCount
      })
      const threads = yield* HashingThreads.make(threadCount)
      return yield* make(gate, threads)
    })
  )
