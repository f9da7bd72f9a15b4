import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { ConsentPrompt } from "../../../application/oauth/BrowserOutcome.js"
import type { OAuthError } from "../../../application/oauth/OAuthError.js"
import * as FormAction from "../FormAction.js"
import * as Html from "../Html.js"
import * as HttpMessage from "../HttpMessage.js"

/** Our pages are never framed (clickjacking) and load nothing from elsewhere. */
const pageHeaders = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
}

const layout = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${Html.escapeText(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}.warn{background:#fff4e5;border-left:4px solid #e8a33d;padding:.5rem .8rem}button{font-size:1rem;margin-right:.5rem;padding:.4rem 1rem}code{background:#f3f3f3;padding:.1rem .3rem;border-radius:3px}</style></head>
<body>${body}</body></html>`

/** Shown instead of redirecting when the client or its redirect URI cannot be trusted. */
export const error = (failure: OAuthError) =>
  HttpMessage.html(
    layout(
      "Sign-in error",
      `<h1>This sign-in request cannot continue</h1>
<p>${Html.escapeText(failure.description)}.</p>
<p>Error code: <code>${Html.escapeText(failure.code)}</code></p>
<p>Return to the application and start again. If this keeps happening, tell its developers.</p>`
    ),
    400,
    pageHeaders
  )

/** Where the page says the code goes, with a warning where any program on the device could be it. */
const destination = (prompt: ConsentPrompt) => {
  const url = new URL(prompt.redirectUri)
  const warn = (heading: string, text: string) => `<p class="warn"><strong>${heading}</strong>\n${text}</p>`
  switch (prompt.destination) {
    case "web":
      return { receivedAt: `at <code>${Html.escapeText(url.host)}</code>`, warning: "" }
    case "loopback":
      return {
        receivedAt: `at <code>${Html.escapeText(url.host)}</code>`,
        warning: warn(
          "Only continue if you started this sign-in yourself from a program on this computer.",
          `The code goes to <code>${Html.escapeText(url.host)}</code>, a program running on this machine, which any local program can pretend to be.`
        )
      }
    case "app":
      return {
        receivedAt: `through <code>${Html.escapeText(url.protocol)}</code> links`,
        warning: warn(
          "Only continue if you started this sign-in yourself from an app on this device.",
          `The code goes to the app that opens <code>${Html.escapeText(url.protocol)}</code> links, which any app installed here can claim to be.`
        )
      }
  }
}

/**
 * Our consent page. The form posts to /consent with the token that is also in a cookie (CSRF:
 * double submit); `frame-ancestors 'none'` keeps it out of frames (clickjacking). The redirect
 * URI's origin is allowed as a form target because the answer to the post redirects there.
 */
export const consent = (prompt: ConsentPrompt) => {
  const redirectSource = FormAction.redirectSource(prompt.redirectUri) ?? ""
  const { receivedAt, warning } = destination(prompt)
  const scope = Option.match(prompt.scope, {
    onNone: () => "",
    onSome: (scope) => `<p>It asks for: <code>${Html.escapeText(scope)}</code></p>`
  })
  return HttpMessage.html(
    layout(
      "Allow access?",
      `<h1>Allow ${Html.escapeText(prompt.clientName === "" ? "this application" : prompt.clientName)} to sign you in?</h1>
<p>Client: <code>${Html.escapeText(prompt.clientId)}</code><br>It will receive your sign-in ${receivedAt}.</p>
${scope}${warning}
<form method="post" action="/consent">
<input type="hidden" name="consent_token" value="${Html.escapeText(Redacted.value(prompt.token))}">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`
    ),
    200,
    {
      ...pageHeaders,
      "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${redirectSource}; frame-ancestors 'none'`
    }
  )
}
