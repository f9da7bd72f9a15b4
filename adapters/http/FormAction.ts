/**
 * The Content-Security-Policy source that lets a page's form answer with a redirect to
 * `target`. Chromium applies `form-action` to the redirects that follow a form's submission
 * too, so a page whose form sends the browser on must name where to, with its scheme: a source
 * without one matches only the page's own scheme, and an https page would then refuse the
 * redirect to a loopback listener at `http://127.0.0.1:…`. An application's own scheme
 * (`com.example.app:/callback`, `cursor://…`) has no origin; it is allowed by its scheme.
 * Undefined when the target does not parse.
 */
export const redirectSource = (target: string): string | undefined => {
  if (!URL.canParse(target)) return undefined
  const url = new URL(target)
  return url.origin !== "null" ? url.origin : url.protocol
}
