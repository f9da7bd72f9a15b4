import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as MailDelivery from "../../../domain/auth/MailDelivery.js"
import * as Time from "../../../domain/Time.js"

const queuedAt = new Date("2026-01-01T00:00:00Z")

describe("MailDelivery", () => {
  it("pauses 5 s after the first failure, doubling up to 5 minutes", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map((n) => Duration.toSeconds(MailDelivery.pauseAfter(n)))).toEqual([
      5, 10, 20, 40, 80, 160, 300, 300, 300
    ])
  })

  it("retries a transient failure, and gives a permanent one up at once", () => {
    expect(MailDelivery.afterFailure({ permanent: false }, 1, queuedAt, queuedAt)).toEqual(
      MailDelivery.Outcome.Retry({ at: Time.plus(queuedAt, "5 seconds") })
    )
    expect(MailDelivery.afterFailure({ permanent: true }, 1, queuedAt, queuedAt)).toEqual(
      MailDelivery.Outcome.GiveUp({ reason: "permanent" })
    )
  })

  it("gives up when the next attempt would fall more than two hours after queueing", () => {
    const lastInTime = Time.plus(queuedAt, Duration.subtract(MailDelivery.retryFor, Duration.minutes(5)))
    expect(MailDelivery.afterFailure({ permanent: false }, 20, queuedAt, lastInTime)._tag).toBe("Retry")
    const late = Time.plus(lastInTime, "1 second")
    expect(MailDelivery.afterFailure({ permanent: false }, 21, queuedAt, late)).toEqual(
      MailDelivery.Outcome.GiveUp({ reason: "expired" })
    )
  })

  it("a mail queued more than two hours ago is stale, even untried", () => {
    expect(MailDelivery.isStale(queuedAt, Time.plus(queuedAt, MailDelivery.retryFor))).toBe(false)
    expect(
      MailDelivery.isStale(queuedAt, Time.plus(Time.plus(queuedAt, MailDelivery.retryFor), "1 millis"))
    ).toBe(true)
  })
})
