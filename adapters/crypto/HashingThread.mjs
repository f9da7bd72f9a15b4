// One thread of the password-hashing pool (HashingThreads.ts). Plain JavaScript because the
// pool starts it as a file of its own, from the built tree and from the sources under test alike.
import { createCipheriv, scryptSync, timingSafeEqual } from "node:crypto"
import { setPriority } from "node:os"
import * as Argon2 from "@node-rs/argon2"
import * as Bcrypt from "@node-rs/bcrypt"

// Hashing yields the CPU to everything else the process does: on Linux a thread's nice value is
// its own, so this lowers this thread only and the event loop keeps its share under a storm of
// sign-ins. Elsewhere the call would lower the whole process, so it is not made.
if (process.platform === "linux") setPriority(0, 10)

/**
 * Runs one task in this thread, synchronously: `argon2.hash` → the PHC string;
 * `argon2.verify` → whether it matches, null when the stored hash cannot be decoded;
 * `bcrypt.verify` → whether it matches (false for a hash bcrypt cannot parse);
 * `fbscrypt.verify` → whether it matches a Firebase hash, read by FirebaseScrypt.ts.
 */
export default function run(task) {
  switch (task.kind) {
    case "argon2.hash":
      return Argon2.hashSync(task.password, task.options)
    case "argon2.verify":
      try {
        return Argon2.verifySync(task.stored, task.password)
      } catch {
        return null
      }
    case "bcrypt.verify":
      return Bcrypt.verifySync(task.password, task.stored)
    case "fbscrypt.verify":
      return firebaseMatches(task.password, task.hash)
    default:
      throw new Error(`unknown hashing task ${String(task.kind)}`)
  }
}

/**
 * Firebase's scrypt: the derived key encrypts the project's signer key with AES-256-CTR from a
 * zero counter, and that must equal the stored hash (compared in constant time).
 */
function firebaseMatches(password, hash) {
  const { cost, blockSize, parallelism } = hash
  const key = scryptSync(password, hash.salt, 32, {
    N: cost,
    r: blockSize,
    p: parallelism,
    // Node refuses above ~128·N·r bytes; FirebaseScrypt.parse bounded that already.
    maxmem: 256 * cost * blockSize
  })
  const cipher = createCipheriv("aes-256-ctr", key, Buffer.alloc(16))
  const derived = Buffer.concat([cipher.update(hash.signerKey), cipher.final()])
  return derived.length === hash.expected.length && timingSafeEqual(derived, hash.expected)
}
