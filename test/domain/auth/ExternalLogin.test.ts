import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as ExternalLogin from "../../../domain/auth/ExternalLogin.js"

const started = new Date("2026-01-01T00:00:00Z")

describe("ExternalLogin", () => {
  it("waits ten minutes at the provider's page, or the flow states' lifetime when longer", () => {
    const expiry = (flowStateLifetime: Duration.Duration) =>
      ExternalLogin.expiryFor(started, flowStateLifetime).getTime() - started.getTime()
    expect(expiry(Duration.seconds(300))).toBe(600_000)
    expect(expiry(Duration.zero)).toBe(600_000)
    expect(expiry(Duration.minutes(11))).toBe(660_000)
    expect(expiry(Duration.hours(1))).toBe(3_600_000)
  })
})
