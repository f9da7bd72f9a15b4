// One thread of the password-hashing pool (HashingThreads.ts). Plain JavaScript because the
// pool starts it as a file of its own, from the built tree and from the sources under test alike.
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
 * `bcrypt.verify` → whether it matches (false for a hash bcrypt cannot parse).
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
    default:
      throw new Error(`unknown hashing task ${String(task.kind)}`)
  }
}
