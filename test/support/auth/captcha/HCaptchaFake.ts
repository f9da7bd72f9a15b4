import * as SiteVerifyFake from "./SiteVerifyFake.js"

/**
 * hCaptcha's siteverify as documented: POST /siteverify, a form body with `secret` and
 * `response`, optionally `remoteip` and `sitekey`. JSON bodies are not taken.
 */
export const start = (secret: string) =>
  SiteVerifyFake.start({
    path: "/siteverify",
    required: ["secret", "response"],
    optional: ["remoteip", "sitekey"],
    acceptsJson: false,
    secret
  })
