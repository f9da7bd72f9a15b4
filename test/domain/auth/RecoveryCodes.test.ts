import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as RecoveryCodes from "../../../domain/auth/RecoveryCodes.js"
import * as Time from "../../../domain/Time.js"

const t0 = new Date("2026-01-01T00:00:00.000Z")
const policy: RecoveryCodes.LockoutPolicy = { maxFailures: 3, lockFor: Duration.minutes(15) }

/** Carries a sequence of attempts out, each a second after the one before. */
const run = (matches: ReadonlyArray<boolean>, start: RecoveryCodes.Attempts = RecoveryCodes.noAttempts) => {
  let attempts = start
  const outcomes: Array<RecoveryCodes.Outcome["_tag"]> = []
  matches.forEach((matched, index) => {
    const outcome = RecoveryCodes.attempt(policy, attempts, matched, Time.plus(t0, Duration.seconds(index)))
    outcomes.push(outcome._tag)
    attempts = RecoveryCodes.after(attempts, outcome)
  })
  return { attempts, outcomes }
}

describe("Recovery code sets", () => {
  it("draws ten codes of sixteen symbols of the alphabet from random bytes", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: RecoveryCodes.bytesNeeded(), maxLength: RecoveryCodes.bytesNeeded() }),
        (bytes) => {
          const codes = RecoveryCodes.fromRandomBytes(bytes)
          for (const code of codes) expect(RecoveryCodes.isWellFormed(code)).toBe(true)
          expect(codes.length).toBeLessThanOrEqual(RecoveryCodes.setSize)
        }
      )
    )
    const bytes = Uint8Array.from({ length: RecoveryCodes.bytesNeeded() }, (_, index) => index % 240)
    const codes = RecoveryCodes.fromRandomBytes(bytes)
    expect(codes).toHaveLength(10)
    expect(codes[0]).toBe("23456789abcdefgh")
  })

  it("skips bytes that would bias the draw", () => {
    const biased = Uint8Array.from([240, 255, 0, 241, 29, ...new Array<number>(14).fill(1)])
    expect(RecoveryCodes.fromRandomBytes(biased, 1)).toEqual([`2z${"3".repeat(14)}`])
  })

  it("the alphabet has no confusable symbols", () => {
    expect(RecoveryCodes.alphabet).toHaveLength(30)
    for (const symbol of "01ilou") expect(RecoveryCodes.alphabet).not.toContain(symbol)
  })

  it("reads codes as auth-js documents: case, spaces and dashes ignored", () => {
    expect(RecoveryCodes.normalize("K4M9-X7QP-2AB8-HT3Z")).toBe("k4m9x7qp2ab8ht3z")
    expect(RecoveryCodes.normalize(" k4m9 x7qp\t2ab8\nht3z ")).toBe("k4m9x7qp2ab8ht3z")
    expect(RecoveryCodes.isWellFormed(RecoveryCodes.normalize("K4M9-X7QP-2AB8-HT3Z"))).toBe(true)
    expect(RecoveryCodes.isWellFormed("k4m9x7qp2ab8ht3")).toBe(false)
    expect(RecoveryCodes.isWellFormed("k4m9x7qp2ab8ht3o")).toBe(false)
  })

  it("reports the set's size and unused codes", () => {
    expect(RecoveryCodes.status([Option.none(), Option.some(t0), Option.none()])).toEqual({
      total: 3,
      remaining: 2
    })
  })
})

describe("Recovery code lockout", () => {
  it("a right code is accepted and clears the failures", () => {
    const { attempts, outcomes } = run([false, false, true])
    expect(outcomes).toEqual(["Rejected", "Rejected", "Accepted"])
    expect(attempts).toEqual(RecoveryCodes.noAttempts)
  })

  it("the last failure allowed starts the lock; a right code is then not even checked", () => {
    const { attempts, outcomes } = run([false, false, false, true])
    expect(outcomes).toEqual(["Rejected", "Rejected", "Rejected", "Locked"])
    expect(attempts.lockedUntil).toEqual(
      Option.some(Time.plus(t0, Duration.sum(Duration.seconds(2), Duration.minutes(15))))
    )
  })

  it("the lock ends at its instant and the user has the full number of tries again", () => {
    const locked = run([false, false, false]).attempts
    const until = Option.getOrThrow(locked.lockedUntil)
    expect(RecoveryCodes.isLocked(locked, new Date(until.getTime() - 1))).toBe(true)
    expect(RecoveryCodes.isLocked(locked, until)).toBe(false)
    const first = RecoveryCodes.attempt(policy, locked, false, until)
    expect(first).toEqual(
      RecoveryCodes.Outcome.Rejected({ attempts: { failedAttempts: 1, lockedUntil: Option.none() } })
    )
    expect(RecoveryCodes.attempt(policy, locked, true, until)._tag).toBe("Accepted")
  })

  it("the default policy is five failures, fifteen minutes", () => {
    expect(RecoveryCodes.lockoutPolicy.maxFailures).toBe(5)
    expect(Duration.toMinutes(RecoveryCodes.lockoutPolicy.lockFor)).toBe(15)
  })
})
