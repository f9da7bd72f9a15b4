import { describe, expect, it, layer } from "@effect/vitest"
import * as Argon2 from "@node-rs/argon2"
import * as Bcrypt from "@node-rs/bcrypt"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as Argon2PasswordHasher from "../../../adapters/crypto/Argon2PasswordHasher.js"
import * as HashingGate from "../../../adapters/crypto/HashingGate.js"
import * as HashingThreads from "../../../adapters/crypto/HashingThreads.js"
import { PasswordHasher } from "../../../application/ports/PasswordHasher.js"
import * as FirebaseHashes from "../../support/auth/FirebaseHashes.js"
import { passwordHasherContract } from "../contract/PasswordHasherContract.js"

const password = Redacted.make("correct horse")
const plain = Redacted.value(password)

/** What a stored hash verified with the right password must report. */
const replace = { matches: true, needsRehash: true }
const keep = { matches: true, needsRehash: false }
const mismatch = { matches: false, needsRehash: false }

layer(Argon2PasswordHasher.layer())("Argon2PasswordHasher", (it) => {
  passwordHasherContract(it)

  it.effect("hashes with argon2id at OWASP's parameters", () =>
    Effect.gen(function* () {
      const hasher = yield* PasswordHasher
      const stored = yield* hasher.hash(password)
      expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
      expect(yield* hasher.verify(password, stored)).toEqual(keep)
      expect(yield* hasher.verify(Redacted.make("wrong horse"), stored)).toEqual(mismatch)
    })
  )

  it.effect("verifies bcrypt hashes, as imported from Supabase, and asks for their replacement", () =>
    Effect.gen(function* () {
      const hasher = yield* PasswordHasher
      for (const version of ["2a", "2b", "2y"] as const) {
        const stored = yield* Effect.promise(() => Bcrypt.hash(plain, { cost: 10, version }))
        expect(stored.startsWith(`$${version}$10$`)).toBe(true)
        expect(yield* hasher.verify(password, stored)).toEqual(replace)
        expect(yield* hasher.verify(Redacted.make("wrong horse"), stored)).toEqual(mismatch)
      }
    })
  )

  it.effect("imports argon2i and argon2id hashes of version 19 within Supabase Auth's bounds only", () =>
    Effect.gen(function* () {
      const hasher = yield* PasswordHasher
      const hash = (parameters: string, scheme = "argon2id") =>
        `$${scheme}$v=19$${parameters}$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA`
      for (const stored of [
        hash("m=65536,t=3,p=4"),
        hash("m=1048576,t=20,p=16"),
        hash("m=16,t=2,p=1", "argon2i")
      ]) {
        expect(yield* hasher.canVerify(stored)).toBe(true)
      }
      for (const stored of [
        hash("m=4294967295,t=4294967295,p=255"),
        hash("m=1048577,t=2,p=1"),
        hash("m=65536,t=21,p=1"),
        hash("m=65536,t=0,p=1"),
        hash("m=65536,t=2,p=17"),
        hash("m=65536,t=2,p=0"),
        // As Supabase Auth's ParseArgon2Hash: not argon2d, not a version before 19.
        hash("m=65536,t=2,p=1", "argon2d"),
        hash("m=65536,t=2,p=1").replace("v=19", "v=16")
      ]) {
        expect(yield* hasher.canVerify(stored)).toBe(false)
      }
    })
  )

  describe("Firebase's scrypt hashes, as Supabase Auth imports them", () => {
    const { hash: firebase, salt, signerKey, vector } = FirebaseHashes
    const imported = Redacted.make(FirebaseHashes.password)

    it.effect("verifies one, and asks for its replacement", () =>
      Effect.gen(function* () {
        const hasher = yield* PasswordHasher
        expect(yield* hasher.canVerify(vector)).toBe(true)
        expect(yield* hasher.verify(imported, vector)).toEqual(replace)
        expect(yield* hasher.verify(Redacted.make("import me from Firebase!"), vector)).toEqual(mismatch)
        // Another signer key, salt separator or salt: another hash.
        const otherKey = firebase(`n=14,r=8,p=1,ss=Bw==,sk=${signerKey.replace("AQID", "AQIE")}`)
        expect(yield* hasher.verify(imported, otherKey)).toEqual(mismatch)
        expect(yield* hasher.verify(imported, firebase(`n=14,r=8,p=1,ss=CA==,sk=${signerKey}`))).toEqual(
          mismatch
        )
      })
    )

    it.effect(
      "refuses to import a malformed one, or one a sign-in could not afford; never fails on one",
      () =>
        Effect.gen(function* () {
          const hasher = yield* PasswordHasher
          for (const stored of [
            vector.replace("v=1", "v=2"),
            firebase(`n=0,r=8,p=1,ss=Bw==,sk=${signerKey}`),
            firebase(`n=14,r=0,p=1,ss=Bw==,sk=${signerKey}`),
            firebase(`n=14,r=8,p=0,ss=Bw==,sk=${signerKey}`),
            // More passes than Supabase Auth allows an argon2 hash threads, more than 1 GiB.
            firebase(`n=14,r=8,p=17,ss=Bw==,sk=${signerKey}`),
            firebase(`n=21,r=8,p=1,ss=Bw==,sk=${signerKey}`),
            firebase(`n=14,r=8,p=1,ss=!!!,sk=${signerKey}`),
            firebase("n=14,r=8,p=1,ss=Bw==,sk=!!!"),
            firebase(`n=14,r=8,p=1,ss=Bw==,sk=${signerKey}`, "!!!"),
            firebase(`n=14,r=8,p=1,ss=Bw==,sk=${signerKey}`, salt, "!!!"),
            `$fbscrypt$v=1,n=14,r=8,p=1$${salt}`
          ]) {
            expect(yield* hasher.canVerify(stored)).toBe(false)
            expect(yield* hasher.verify(imported, stored)).toEqual(mismatch)
          }
          // The largest it takes: 1 GiB of scrypt (n=20, r=8) is still imported.
          expect(yield* hasher.canVerify(firebase(`n=20,r=8,p=1,ss=Bw==,sk=${signerKey}`))).toBe(true)
        })
    )
  })

  it.effect("verifies published bcrypt vectors, not only its own library's output", () =>
    Effect.gen(function* () {
      const hasher = yield* PasswordHasher
      // From the crypt_blowfish test vectors (Openwall): "U*U" at cost 5, as $2a$ and as $2y$.
      const vector = "CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
      expect(yield* hasher.verify(Redacted.make("U*U"), `$2a$05$${vector}`)).toEqual(replace)
      expect(yield* hasher.verify(Redacted.make("U*U"), `$2y$05$${vector}`)).toEqual(replace)
      expect(yield* hasher.verify(Redacted.make("U*V"), `$2a$05$${vector}`)).toEqual(mismatch)
      // $2x$ names a historical bug the package does not reproduce: refused, not misread.
      expect(yield* hasher.verify(Redacted.make("U*U"), `$2x$05$${vector}`)).toEqual(mismatch)
    })
  )

  it.effect("asks to replace argon2 hashes weaker than the current parameters, and keeps stronger ones", () =>
    Effect.gen(function* () {
      const hasher = yield* PasswordHasher
      const made = (options: Argon2.Options) => Effect.promise(() => Argon2.hash(plain, options))
      // `2` is Argon2id and `1` Argon2i, `0`/`1` the versions 0x10/0x13 (const enums, see the adapter).
      const weaker = [
        { algorithm: 2, memoryCost: 8_192, timeCost: 2, parallelism: 1 },
        { algorithm: 2, memoryCost: 19_456, timeCost: 1, parallelism: 1 },
        { algorithm: 1, memoryCost: 19_456, timeCost: 2, parallelism: 1 },
        { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1, version: 0 },
        { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1, outputLen: 16 }
      ]
      for (const options of weaker) {
        const stored = yield* made(options)
        expect(yield* hasher.verify(password, stored)).toEqual(replace)
        expect(yield* hasher.verify(Redacted.make("wrong horse"), stored)).toEqual(mismatch)
      }
      const stronger = yield* made({ algorithm: 2, memoryCost: 32_768, timeCost: 3, parallelism: 1 })
      expect(yield* hasher.verify(password, stronger)).toEqual(keep)
    })
  )

  it.effect("logs an unreadable hash at debug by its scheme alone", () =>
    Effect.gen(function* () {
      const hasher = yield* PasswordHasher
      const lines: Array<string> = []
      const capture = Logger.make(({ annotations, logLevel, message }) => {
        lines.push(`${logLevel.label} ${String(message)} ${JSON.stringify([...annotations])}`)
      })
      // Passlib's scrypt, which Supabase Auth does not import either.
      const stored = "$scrypt$ln=16,r=8,p=1$c2VjcmV0$aGFzaA"
      const verification = yield* hasher
        .verify(password, stored)
        .pipe(
          Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
          Logger.withMinimumLogLevel(LogLevel.Debug)
        )
      expect(verification).toEqual(mismatch)
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain("DEBUG")
      expect(lines[0]).toContain("$scrypt$")
      expect(lines[0]).not.toContain("c2VjcmV0")
    })
  )
})

describe("Argon2PasswordHasher's gate", () => {
  it.scoped("hashing and verifying wait for a slot in the gate, and die busy beyond its queue", () =>
    Effect.gen(function* () {
      const gate = yield* HashingGate.make({ concurrency: 1, queue: 0 })
      const hasher = yield* Argon2PasswordHasher.make(gate, yield* HashingThreads.make(1))
      const stored = yield* hasher.hash(password)

      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const occupant = yield* Effect.fork(
        gate.run(Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release)))
      )
      yield* Deferred.await(started)

      for (const call of [
        hasher.hash(password),
        hasher.verify(password, stored),
        hasher.verifyDummy(password)
      ]) {
        const exit = yield* Effect.exit(call)
        expect(
          Exit.isFailure(exit) &&
            [...Cause.defects(exit.cause)].some((d) => d instanceof HashingGate.HashingBusy)
        ).toBe(true)
      }

      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(occupant)
      expect(yield* hasher.verify(password, stored)).toEqual(keep)
    })
  )

  it.scoped("many concurrent sign-ins through one slot all get their answer", () =>
    Effect.gen(function* () {
      const gate = yield* HashingGate.make({ concurrency: 1, queue: 16 })
      const hasher = yield* Argon2PasswordHasher.make(gate, yield* HashingThreads.make(1))
      const stored = yield* hasher.hash(password)
      const answers = yield* Effect.all(
        Array.from({ length: 16 }, (_, n) =>
          hasher.verify(n % 2 === 0 ? password : Redacted.make("nope"), stored)
        ),
        { concurrency: "unbounded" }
      )
      expect(answers).toEqual(Array.from({ length: 16 }, (_, n) => (n % 2 === 0 ? keep : mismatch)))
    })
  )
})
