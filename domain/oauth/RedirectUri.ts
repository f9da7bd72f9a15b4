import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/**
 * Redirect URIs of OAuth clients (RFC 6749 §3.1.2, RFC 8252, RFC 9700 §4.1).
 * A registered URI is https, plain http on a loopback host, or an app's own scheme (RFC 8252
 * §7.1: `com.example.app:/callback`, and Cursor's `cursor://…`); never a fragment, never
 * relative, never a scheme the browser or the system handles itself. Matching is exact string
 * comparison, with one exception: a loopback http URI matches on any port (RFC 8252 §7.3),
 * since native apps and MCP clients bind an ephemeral port for each login.
 */

export class InvalidRedirectUri extends Schema.TaggedError<InvalidRedirectUri>()("InvalidRedirectUri", {
  uri: Schema.String,
  message: Schema.String
}) {}

/** Hosts RFC 8252 §7.3 calls loopback; `localhost` is admitted because MCP clients use it. */
const loopbackHosts: ReadonlySet<string> = new Set(["127.0.0.1", "[::1]", "localhost"])

const refuse = (uri: string, message: string) => Either.left(new InvalidRedirectUri({ uri, message }))

const parse = (uri: string): URL | undefined => {
  // Without a base, a relative reference fails to parse, which is what we want.
  try {
    return new URL(uri)
  } catch {
    return undefined
  }
}

export const isLoopback = (url: URL): boolean => url.protocol === "http:" && loopbackHosts.has(url.hostname)

/**
 * Schemes the browser or the operating system handles itself rather than handing the URI to the
 * app that claimed them: a code sent to one would run as script, be read as a document, go to a
 * server no client controls, or nowhere (`urn:`, which the retired out-of-band flow used).
 */
const reservedSchemes: ReadonlySet<string> = new Set([
  "javascript:",
  "vbscript:",
  "data:",
  "blob:",
  "file:",
  "filesystem:",
  "about:",
  "view-source:",
  "ftp:",
  "ws:",
  "wss:",
  "mailto:",
  "tel:",
  "sms:",
  "intent:",
  "jar:",
  "chrome:",
  "edge:",
  "resource:",
  "urn:"
])

/**
 * Where a redirect URI hands the code: a web origin, a program listening on this machine, or
 * the app that claimed the scheme on this device. The last two are anyone's who gets there
 * first: PKCE (required of public clients) keeps a code taken in flight worthless, but a
 * program that starts the login itself holds its own verifier (see `remembersConsent`).
 */
export type Destination = "web" | "loopback" | "app"

export const destination = (url: URL): Destination => {
  if (isLoopback(url)) return "loopback"
  return url.protocol === "https:" || url.protocol === "http:" ? "web" : "app"
}

/**
 * May a consent the user gave this client before stand for a request with this redirect URI?
 * Only where the URI proves who receives the code: a web origin (RFC 8252 §8.6). A loopback
 * listener or an app's scheme is whoever claims it on the device first, so a program there
 * could start a login under a client id the user trusts and take the code unseen; each such
 * login is asked anew.
 */
export const remembersConsent = (url: URL): boolean => destination(url) === "web"

/** The rule for a URI a client registers (dynamic registration, operator seeding, metadata documents). */
export const validate = (uri: string): Either.Either<string, InvalidRedirectUri> => {
  if (uri.length > 2000) return refuse(uri, "redirect_uri is longer than 2000 characters")
  if (uri.includes("#")) return refuse(uri, "redirect_uri must not contain a fragment")
  const url = parse(uri)
  if (url === undefined) return refuse(uri, "redirect_uri must be an absolute URI")
  if (url.username !== "" || url.password !== "") {
    return refuse(uri, "redirect_uri must not carry user information")
  }
  if (url.protocol === "https:") return Either.right(uri)
  if (url.protocol === "http:") {
    return isLoopback(url)
      ? Either.right(uri)
      : refuse(uri, "redirect_uri must use https, or http on 127.0.0.1, [::1] or localhost")
  }
  // An app's own scheme (RFC 8252 §7.1). §8.4 would have servers refuse one without a period,
  // but Cursor, the MCP client most often met, registers `cursor://`: refusing it refuses the
  // whole registration, and the connector never starts. The rest of §8 holds here: PKCE, exact
  // matching, and a consent page naming the scheme.
  return reservedSchemes.has(url.protocol)
    ? refuse(uri, `redirect_uri scheme ${url.protocol} is not allowed`)
    : Either.right(uri)
}

/** Every URI valid, or the first refusal; when valid, the URIs without repeats, in order. */
export const validateAll = (
  uris: ReadonlyArray<string>
): Either.Either<ReadonlyArray<string>, InvalidRedirectUri> => {
  for (const uri of uris) {
    const valid = validate(uri)
    if (Either.isLeft(valid)) return Either.left(valid.left)
  }
  return Either.right([...new Set(uris)])
}

/** Does the URI presented at authorize (or token) match one the client registered? */
export const matches = (registered: string, presented: string): boolean => {
  if (presented.includes("#")) return false
  if (registered === presented) return true
  const r = parse(registered)
  const p = parse(presented)
  if (r === undefined || p === undefined || !isLoopback(r) || !isLoopback(p)) return false
  // Only the port may differ. Comparing the raw texts with the port cut out keeps every other
  // byte exact: `http://127.0.0.1/cb` never matches `http://localhost/cb`, `.../cb/` or `.../CB`.
  return rawWithoutPort(registered) === rawWithoutPort(presented)
}

/** The raw text with an explicit `:port` after the host removed, so encodings must match too. */
const rawWithoutPort = (uri: string): string =>
  uri.replace(/^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(:\d+)?/, "$1")

export const matchesAny = (registered: ReadonlyArray<string>, presented: string): boolean =>
  registered.some((uri) => matches(uri, presented))
