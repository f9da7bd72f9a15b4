import { describe, expect, it } from "@effect/vitest"
import * as client from "openid-client"
import * as UpstreamFailure from "../../../adapters/idp/UpstreamFailure.js"
import { DestinationUnreachable, OutboundTimedOut } from "../../../adapters/outbound/OutboundFailure.js"

const failed = UpstreamFailure.failed("The code exchange at oidc failed")

/** What openid-client throws around a cause, as it wraps what its fetch threw or answered. */
const wrapped = (cause: unknown) => new client.ClientError("wrapped", { cause })

describe("UpstreamFailure", () => {
  it("says the upstream was unavailable when it could not be reached, timed out or failed on its side", () => {
    const unavailable = [
      new DestinationUnreachable({ host: "id.example", code: "ECONNREFUSED", message: "unreachable" }),
      wrapped(new OutboundTimedOut({ host: "id.example", millis: 10_000, message: "timed out" })),
      wrapped(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
      // A proxy's own answer in front of the upstream: HTML, not OAuth JSON.
      wrapped(new Response("<h1>503 Service Unavailable</h1>", { status: 503 })),
      new TypeError("fetch failed", { cause: { code: "ECONNRESET" } })
    ]
    for (const cause of unavailable) expect([cause, failed(cause).unavailable]).toEqual([cause, true])
  })

  it("says a refusal or a broken answer is no outage", () => {
    const refused = [
      wrapped(new Response("<h1>400 Bad Request</h1>", { status: 400 })),
      new client.AuthorizationResponseError("authorization response from the server is an error", {
        cause: new URLSearchParams({ error: "access_denied" })
      }),
      wrapped(new Error("unexpected JWT claim value encountered")),
      new Error("anything else")
    ]
    for (const cause of refused) expect([cause, failed(cause).unavailable]).toEqual([cause, false])
    // The message says where and why, without the upstream's text.
    expect(failed(refused[0]).message).toMatch(/^The code exchange at oidc failed: /)
  })
})
