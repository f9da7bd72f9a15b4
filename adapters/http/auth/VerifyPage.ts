import { createHash } from "node:crypto"
import * as FormAction from "../FormAction.js"
import * as Html from "../Html.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"

/** What a mailed link carries, as GET /verify reads it and the page's form posts it back. */
export interface Link {
  readonly type: string
  readonly token: string
  /** As the link has it (`""` when absent): the POST checks it against the allow list again. */
  readonly redirectTo: string
}

/** The page's words for each kind of link; other types get the last ones. */
const wording = (type: string) => {
  switch (type) {
    case "magiclink":
      return { title: "Sign in", action: "finish signing in", button: "Sign in" }
    case "signup":
      return { title: "Confirm your email address", action: "confirm your address", button: "Confirm" }
    case "invite":
      return { title: "Accept your invitation", action: "accept the invitation", button: "Accept invitation" }
    case "recovery":
      return { title: "Reset your password", action: "go on to choose a new password", button: "Continue" }
    case "email_change":
      return { title: "Confirm the email change", action: "confirm the change", button: "Confirm change" }
    default:
      return { title: "Continue", action: "continue", button: "Continue" }
  }
}

const style =
  "body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}" +
  "h1{font-size:1.4rem}button{font-size:1rem;padding:.5rem 1.2rem;cursor:pointer}.note{color:#666;font-size:.9rem}"

/** The one inline style block, allowed by its digest: the page runs no script and loads nothing. */
const styleSource = `'sha256-${createHash("sha256").update(style).digest("base64")}'`

const headers = (target: string) => {
  // A target that does not parse leaves `form-action` out rather than strand a person whose
  // token the press has already used.
  const redirect = FormAction.redirectSource(target)
  return {
    "content-security-policy": [
      "default-src 'none'",
      `style-src ${styleSource}`,
      ...(redirect === undefined ? [] : [`form-action 'self' ${redirect}`]),
      "frame-ancestors 'none'",
      "base-uri 'none'"
    ].join("; "),
    "cache-control": "no-store",
    // The page's address holds the token: it must not leave with the press's request or redirect.
    "referrer-policy": "no-referrer",
    "x-robots-tag": "noindex, nofollow",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff"
  }
}

const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${name}" value="${Html.escapeText(value)}">`

/**
 * The page GET /verify shows in place of using the link: one button that posts the link's
 * token, type and `redirect_to` back as a form, whose answer is what following the link
 * answers otherwise. Nothing of the link goes into script (there is none): its values are
 * escaped into hidden fields. The form posts to `verify` relative to the page, so that it
 * reaches the service under a gateway's prefix (`/auth/v1/verify`) as well as at the root.
 */
export const render = (link: Link, target: string) => {
  const words = wording(link.type)
  return HttpMessage.html(
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow"><meta name="referrer" content="no-referrer">
<title>${Html.escapeText(words.title)}</title>
<style>${style}</style></head>
<body><main>
<h1>${Html.escapeText(words.title)}</h1>
<p>Press the button to ${Html.escapeText(words.action)}.</p>
<form method="post" action="verify">
${hidden("token", link.token)}
${hidden("type", link.type)}
${hidden("redirect_to", link.redirectTo)}
<button type="submit">${Html.escapeText(words.button)}</button>
</form>
<p class="note">The link works once. If you did not ask for it, close this page.</p>
</main></body></html>
`,
    200,
    headers(target)
  )
}

/** The values of a header, lower-cased, split at commas and stripped of parameters. */
const tokensOf = (request: Pick<HttpRequest, "headers">, name: string): ReadonlyArray<string> => {
  const value = request.headers[name]
  const values = value === undefined ? [] : typeof value === "string" ? [value] : value
  return values.flatMap((one) =>
    one.split(",").map((item) => (item.split(";")[0] ?? "").trim().toLowerCase())
  )
}

/**
 * A browser fetching ahead of a click: `Sec-Purpose: prefetch` (speculation rules, `<link
 * rel=prefetch>`), and the older `Purpose: prefetch`, Firefox's `X-Moz: prefetch` and Safari's
 * `X-Purpose: preview`. Nobody has followed the link yet.
 */
export const isPrefetch = (request: Pick<HttpRequest, "headers">): boolean =>
  tokensOf(request, "sec-purpose").includes("prefetch") ||
  tokensOf(request, "purpose").includes("prefetch") ||
  tokensOf(request, "x-moz").includes("prefetch") ||
  tokensOf(request, "x-purpose").includes("preview")
