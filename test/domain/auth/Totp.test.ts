import { createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as Totp from "../../../domain/auth/Totp.js"

/** RFC 6238's reference algorithm, written out here independently of any library. */
const codeAt = (secret: Buffer, step: number): string => {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(step))
  const mac = createHmac("sha1", secret).update(counter).digest()
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f
  const binary = mac.readUInt32BE(offset) & 0x7fffffff
  return String(binary % 10 ** Totp.parameters.digits).padStart(Totp.parameters.digits, "0")
}

// RFC 6238 appendix B's SHA-1 secret.
const secret = Buffer.from("12345678901234567890", "ascii")

/** The steps of the window at `now` whose code is `code`. */
const matching = (code: string, now: Date) => Totp.window(now).filter((step) => codeAt(secret, step) === code)

describe("TOTP steps", () => {
  it("counts 30-second steps from the epoch (RFC 6238 appendix B)", () => {
    expect(Totp.stepAt(new Date(59_000))).toBe(1)
    expect(Totp.stepAt(new Date(1_111_111_109_000))).toBe(0x23523ec)
    expect(Totp.stepAt(new Date(2_000_000_000_000))).toBe(0x3f940aa)
    // The RFC's 8-digit value 94287082 at T = 59 s, cut to 6 digits.
    expect(codeAt(secret, Totp.stepAt(new Date(59_000)))).toBe("287082")
  })

  it("accepts the current step and one on either side", () => {
    const now = new Date(1_111_111_109_000)
    expect(Totp.window(now)).toEqual([0x23523eb, 0x23523ec, 0x23523ed])
  })

  it("a code is six digits, nothing else", () => {
    expect(["287082", "28708", "2870820", "28708a", " 87082"].map(Totp.isWellFormed)).toEqual([
      true,
      false,
      false,
      false,
      false
    ])
  })
})

describe("TOTP never-twice rule", () => {
  const now = new Date("2026-01-01T00:00:10.000Z")
  const current = Totp.stepAt(now)

  it("accepts the code of the current step once, then calls it a replay", () => {
    const code = codeAt(secret, current)
    const first = Totp.decide(matching(code, now), Option.none())
    expect(first).toEqual(Totp.Decision.Accepted({ step: current }))
    expect(Totp.decide(matching(code, now), Option.some(current))).toEqual(Totp.Decision.Replayed())
  })

  it("accepts the previous and the next step's codes, and nothing further", () => {
    for (const delta of [-1, 1]) {
      expect(Totp.decide(matching(codeAt(secret, current + delta), now), Option.none())).toEqual(
        Totp.Decision.Accepted({ step: current + delta })
      )
    }
    for (const delta of [-3, -2, 2, 3]) {
      const code = codeAt(secret, current + delta)
      // A code of a step outside the window could collide with one inside; this secret's do not.
      expect(Totp.decide(matching(code, now), Option.none())).toEqual(Totp.Decision.Invalid())
    }
  })

  it("once a newer step was used, an older code in the window is a replay", () => {
    const older = codeAt(secret, current - 1)
    expect(Totp.decide(matching(older, now), Option.some(current))).toEqual(Totp.Decision.Replayed())
  })

  it("the code accepted 30 seconds later is the next step's, even within one window", () => {
    const next = Totp.decide(matching(codeAt(secret, current + 1), now), Option.some(current))
    expect(next).toEqual(Totp.Decision.Accepted({ step: current + 1 }))
  })

  it("with two matching steps the earliest fresh one is taken", () => {
    expect(Totp.decide([7, 5, 6], Option.some(5))).toEqual(Totp.Decision.Accepted({ step: 6 }))
    expect(Totp.decide([5], Option.some(5))).toEqual(Totp.Decision.Replayed())
  })

  it("never accepts a step at or before the last used one", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 3 }),
        fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
        (steps, last) => {
          const decision = Totp.decide(steps, Option.fromNullable(last))
          if (decision._tag === "Accepted") {
            expect(steps).toContain(decision.step)
            if (last !== undefined) expect(decision.step).toBeGreaterThan(last)
          }
        }
      )
    )
  })
})

describe("TOTP factor labels", () => {
  it("the issuer is the request's, else SITE_URL's host", () => {
    expect(Totp.issuerOf("", new URL("https://app.example.com:8443/x"))).toBe("app.example.com:8443")
    expect(Totp.issuerOf("Acme", new URL("https://app.example.com"))).toBe("Acme")
    expect(Totp.label("Acme", "a@example.com")).toBe("Acme:a@example.com")
  })
})
