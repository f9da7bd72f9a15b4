import * as Metric from "effect/Metric"

/**
 * The oauth service's domain counters, exported with the request metrics when metrics are on
 * (an increment is a few field writes either way).
 */
const tokensIssued = Metric.counter("latchkey.oauth.tokens_issued", {
  description: "Access tokens issued, by grant type",
  incremental: true
})

export const codeExchanged = Metric.tagged(tokensIssued, "grant_type", "authorization_code")
export const refreshed = Metric.tagged(tokensIssued, "grant_type", "refresh_token")

export const rotations = Metric.counter("latchkey.oauth.refresh_rotations", {
  description: "Refresh tokens rotated",
  incremental: true
})

const replays = Metric.counter("latchkey.oauth.replays_detected", {
  description: "Used refresh tokens or codes presented again (their grant or family is revoked)",
  incremental: true
})

export const refreshReplayed = Metric.tagged(replays, "token_type", "refresh_token")
export const codeReplayed = Metric.tagged(replays, "token_type", "authorization_code")

export const registrations = Metric.counter("latchkey.oauth.registrations", {
  description: "Clients registered dynamically (RFC 7591)",
  incremental: true
})

export const rateLimitRefusals = Metric.counter("latchkey.oauth.rate_limit_refusals", {
  description: "Requests refused by a rate limit, by what was limited",
  incremental: true
}).pipe(Metric.tagged("limit", "register"))
