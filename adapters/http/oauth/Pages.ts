import { HttpServerResponse } from "@effect/platform"
import type { OAuthError } from "../../../application/oauth/OAuthError.js"

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c
  )

/** Our pages are never framed (clickjacking) and load nothing from elsewhere. */
export const pageHeaders = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
}

const layout = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}code{background:#f3f3f3;padding:.1rem .3rem;border-radius:3px}</style></head>
<body>${body}</body></html>`

/** Shown instead of redirecting when the client or its redirect URI cannot be trusted. */
export const error = (failure: OAuthError) =>
  HttpServerResponse.text(
    layout(
      "Sign-in error",
      `<h1>This sign-in request cannot continue</h1>
<p>${escapeHtml(failure.description)}.</p>
<p>Error code: <code>${escapeHtml(failure.code)}</code></p>
<p>Return to the application and start again. If this keeps happening, tell its developers.</p>`
    ),
    { status: 400, headers: pageHeaders, contentType: "text/html; charset=utf-8" }
  )
