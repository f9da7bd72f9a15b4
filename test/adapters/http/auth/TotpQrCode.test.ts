import { describe, expect, it } from "vitest"
import * as TotpQrCode from "../../../../adapters/http/auth/TotpQrCode.js"
import * as TotpUri from "../../../../domain/auth/TotpUri.js"

describe("the TOTP enrolment's QR code", () => {
  it("draws every URI the enrolment lets through: as long as TotpUri.qrCodeCapacity", () => {
    // Lower-case letters, as an issuer mostly is: byte mode, the least dense.
    const prefix = "otpauth://totp/"
    const longest = `${prefix}${"x".repeat(TotpUri.qrCodeCapacity - prefix.length)}`
    expect(TotpUri.fitsQrCode(longest)).toBe(true)
    expect(TotpQrCode.svg(longest)).toMatch(/^<svg/)
    expect(TotpUri.fitsQrCode(`${longest}x`)).toBe(false)
  })
})
