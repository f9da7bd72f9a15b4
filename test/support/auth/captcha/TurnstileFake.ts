import * as SiteVerifyFake from "./SiteVerifyFake.js"

/**
 * Cloudflare Turnstile's siteverify as documented: POST /turnstile/v0/siteverify, a form or JSON
 * body with `secret` and `response`, optionally `remoteip` and `idempotency_key`.
 */
export const start = (secret: string) =>
  SiteVerifyFake.start({
    path: "/turnstile/v0/siteverify",
    required: ["secret", "response"],
    optional: ["remoteip", "idempotency_key"],
    acceptsJson: true,
    secret
  })
