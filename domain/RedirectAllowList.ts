import * as Option from "effect/Option"

/**
 * A glob matcher, implemented outside the domain (adapters/glob/PicomatchGlob.ts). Contract:
 * `*` matches characters within one `/`-separated segment, never a `/`; a `**` segment matches
 * any number of segments; `{a,b}` matches either alternative; every other character, `?` and
 * `[` included, matches only itself; the pattern must match the whole subject.
 */
export interface Glob {
  readonly matches: (pattern: string, subject: string) => boolean
}

/** How one part of an allow-list entry is compared with the same part of a redirect URL. */
export type Part =
  | { readonly _tag: "Any" }
  | { readonly _tag: "Exact"; readonly value: string }
  | { readonly _tag: "Pattern"; readonly pattern: string }

/**
 * One `URI_ALLOW_LIST` entry, split into parts that are matched separately, so that a wildcard
 * can never reach from one part into another (a host `*` into the path or the query, say).
 * A host pattern is kept with its labels joined by `/`, so that a `*` never crosses a `.`.
 */
export interface Entry {
  readonly source: string
  readonly scheme: string
  readonly host: Part
  readonly port: Part
  readonly path: Part
  readonly query: Part
}

interface Origin {
  readonly scheme: string
  readonly hostname: string
  readonly port: string
}

export interface RedirectAllowList {
  readonly site: Option.Option<Origin>
  readonly entries: ReadonlyArray<Entry>
  /** Entries that can never match (unparsable, with credentials, an IP address…): worth a warning. */
  readonly ignored: ReadonlyArray<string>
  /** Loopback IP literals are allowed at any port and path, as RFC 8252 §7.3 asks for native apps. */
  readonly allowLoopbackIp: boolean
}

// Schemes whose URLs run code or read local data where the browser lands: never a redirect target,
// whatever the allow list says.
const deniedSchemes: ReadonlySet<string> = new Set([
  "javascript",
  "data",
  "vbscript",
  "file",
  "blob",
  "about"
])

const defaultPorts: ReadonlyMap<string, string> = new Map([
  ["http", "80"],
  ["https", "443"]
])

// Supabase Auth treats these as the same machine as a loopback site URL, whatever the port.
const loopbackNames: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]", "0.0.0.0", "[::]"])

// Supabase Auth's check for ordinary host names of http(s) URLs; an IDN arrives here as punycode.
const regularHostname = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/
const ipv4 = /^[0-9]{1,3}(\.[0-9]{1,3}){3}$/
const decimalOnly = /^[0-9]+$/
const wildcard = /[*{}]/
// A host whose last label is a number is read as IPv4 by the URL parser; `10.0.0.*` means one too.
const looksLikeIpv4 = (labels: ReadonlyArray<string>) =>
  decimalOnly.test(labels.at(-1) ?? "") ||
  (labels.some((label) => /[0-9]/.test(label)) && labels.every((label) => /^[0-9*]+$/.test(label)))

const isHttp = (scheme: string) => defaultPorts.has(scheme)
const effectivePort = (scheme: string, port: string) =>
  port === "" ? (defaultPorts.get(scheme) ?? "") : port
const isIpLiteral = (hostname: string) => ipv4.test(hostname) || hostname.startsWith("[")
const isLoopbackIp = (hostname: string) =>
  hostname === "[::1]" || (ipv4.test(hostname) && hostname.startsWith("127."))

// Control characters and spaces are never valid in a URL, and the URL parser silently removes
// tabs and newlines; a backslash is read as `/` by browsers but not by every other parser.
const hasUnsafeCharacter = (text: string) =>
  Array.from(text).some((char) => {
    const code = char.codePointAt(0) ?? 0
    return code <= 0x20 || code === 0x7f || char === "\\"
  })

const parseUrl = Option.liftThrowable((text: string) => new URL(text))

interface Candidate extends Origin {
  readonly path: string
  readonly query: string
}

const rawAuthorityOf = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/*([^/?#]*)/
const plainAuthority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]/
const hostOf = (authority: string) => authority.replace(/:[0-9]*$/, "").toLowerCase()

const hostIsAcceptable = (scheme: string, hostname: string): boolean => {
  if (hostname === "") return !isHttp(scheme)
  if (decimalOnly.test(hostname)) return false
  if (isIpLiteral(hostname)) return true
  if (hostname.split(".").includes("")) return false
  return !isHttp(scheme) || regularHostname.test(hostname)
}

/**
 * The redirect URL as a browser will read it (WHATWG URL), or none when it must not be used:
 * unparsable, with credentials, a denied scheme, or an unusual host name.
 */
const parseCandidate = (raw: string): Option.Option<Candidate> => {
  if (raw === "" || hasUnsafeCharacter(raw)) return Option.none()
  const rawAuthority = Option.fromNullable(rawAuthorityOf.exec(raw)?.[1])
  // Any `@` in the authority, even an empty user (`https://@host`), is refused: it only serves to
  // make a URL read differently by people and by other parsers.
  if (Option.exists(rawAuthority, (authority) => authority.includes("@"))) return Option.none()
  return Option.flatMap(parseUrl(raw), (url) => {
    const scheme = url.protocol.slice(0, -1)
    const hostname = url.hostname.toLowerCase()
    if (url.username !== "" || url.password !== "") return Option.none()
    // `https:host`, `https:///host` and the like are rewritten to `https://host` by the URL
    // parser but read otherwise elsewhere: http(s) URLs must be written in the one plain way.
    if (isHttp(scheme) && !plainAuthority.test(raw)) return Option.none()
    if (deniedSchemes.has(scheme) || !hostIsAcceptable(scheme, hostname)) return Option.none()
    // The URL parser rewrites `2130706433`, `0x7f.1` or `127.1` to `127.0.0.1`; Supabase Auth
    // refuses such obfuscated addresses, and so do we: an IPv4 host must be written as such.
    if (ipv4.test(hostname) && !Option.exists(rawAuthority, (authority) => hostOf(authority) === hostname)) {
      return Option.none()
    }
    return Option.some({
      scheme,
      hostname,
      port: effectivePort(scheme, url.port),
      path: url.pathname,
      query: url.search.slice(1)
    })
  })
}

const exact = (value: string): Part => ({ _tag: "Exact", value })
const patternOrExact = (text: string): Part =>
  wildcard.test(text) ? { _tag: "Pattern", pattern: text } : exact(text)

/** An entry without wildcards: parsed as a URL, so it is normalised exactly as candidates are. */
const parseExactEntry = (source: string, text: string): Option.Option<Entry> =>
  Option.flatMap(parseCandidate(text), (url) =>
    isIpLiteral(url.hostname)
      ? Option.none()
      : Option.some({
          source,
          scheme: url.scheme,
          host: exact(url.hostname),
          port: exact(url.port),
          path: exact(url.path),
          query: exact(url.query)
        })
  )

const schemeAndRest = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s
const hostLabel = /^[a-z0-9*{},_-]+$/

/**
 * An entry with wildcards, split by hand since `*` is not valid in every part of a URL. A `?`
 * starts the query, as in any URI; an entry with no query whose path ends in a wildcard accepts
 * any query (in Supabase Auth that trailing `*` or `**` swallows the query too), otherwise the
 * query must be as written (usually: none).
 */
const parsePatternEntry = (source: string, text: string): Option.Option<Entry> => {
  const parts = schemeAndRest.exec(text)
  const scheme = parts?.[1]?.toLowerCase() ?? ""
  const rest = parts?.[2] ?? ""
  if (parts === null || deniedSchemes.has(scheme)) return Option.none()

  const queryAt = rest.indexOf("?")
  const beforeQuery = queryAt < 0 ? rest : rest.slice(0, queryAt)
  const query = queryAt < 0 ? Option.none<string>() : Option.some(rest.slice(queryAt + 1))

  let authority = ""
  let path = beforeQuery
  if (beforeQuery.startsWith("//")) {
    const slashAt = beforeQuery.indexOf("/", 2)
    authority = slashAt < 0 ? beforeQuery.slice(2) : beforeQuery.slice(2, slashAt)
    path = slashAt < 0 ? "" : beforeQuery.slice(slashAt)
  }
  if (authority.includes("@") || authority.startsWith("[")) return Option.none()

  const colonAt = authority.lastIndexOf(":")
  const host = (colonAt < 0 ? authority : authority.slice(0, colonAt)).toLowerCase()
  const port = colonAt < 0 ? "" : authority.slice(colonAt + 1)
  const labels = host === "" ? [] : host.split(".")
  if (isHttp(scheme) && host === "") return Option.none()
  if (!labels.every((label) => hostLabel.test(label))) return Option.none()
  // IP-address hosts never reach the entries (see isAllowed), so such an entry is pointless.
  if (looksLikeIpv4(labels)) return Option.none()
  if (colonAt >= 0 && !(port === "*" || /^[0-9]+$/.test(port) || wildcard.test(port))) return Option.none()

  // `myapp://**` means any URL of that scheme, as the `**` swallows the rest in Supabase Auth.
  const swallowsRest = path === "" && Option.isNone(query) && authority.endsWith("**")
  const anything: Part = { _tag: "Any" }
  const pathPart = path === "" && isHttp(scheme) ? "/" : path
  return Option.some({
    source,
    scheme,
    host: wildcard.test(host) ? { _tag: "Pattern", pattern: labels.join("/") } : exact(host),
    port:
      port === "*" || (swallowsRest && colonAt < 0)
        ? anything
        : wildcard.test(port)
          ? { _tag: "Pattern", pattern: port }
          : exact(effectivePort(scheme, port === "" ? "" : String(Number(port)))),
    path: swallowsRest ? anything : patternOrExact(pathPart),
    query: Option.match(query, {
      onNone: () => (pathPart.endsWith("*") || swallowsRest ? anything : exact("")),
      onSome: patternOrExact
    })
  })
}

const parseEntry = (source: string): Option.Option<Entry> => {
  const text = source.trim()
  if (text === "" || hasUnsafeCharacter(text) || text.includes("#")) return Option.none()
  return wildcard.test(text) ? parsePatternEntry(source, text) : parseExactEntry(source, text)
}

/**
 * The redirect rule from `SITE_URL` and `URI_ALLOW_LIST` (the raw comma-separated value, or
 * entries already split). `options.allowLoopbackIp` defaults to true, as in Supabase Auth.
 */
export const make = (
  siteUrl: string,
  allowList: string | ReadonlyArray<string>,
  options: { readonly allowLoopbackIp?: boolean } = {}
): RedirectAllowList => {
  const sources = (typeof allowList === "string" ? allowList.split(",") : allowList)
    .map((source) => source.trim())
    .filter((source) => source !== "")
  const entries: Array<Entry> = []
  const ignored: Array<string> = []
  for (const source of sources) {
    Option.match(parseEntry(source), {
      onNone: () => ignored.push(source),
      onSome: (entry) => entries.push(entry)
    })
  }
  return {
    site: Option.map(parseUrl(siteUrl), (url) => ({
      scheme: url.protocol.slice(0, -1),
      hostname: url.hostname.toLowerCase(),
      port: effectivePort(url.protocol.slice(0, -1), url.port)
    })),
    entries,
    ignored,
    allowLoopbackIp: options.allowLoopbackIp ?? true
  }
}

const matchesPart = (part: Part, subject: string, glob: Glob): boolean => {
  switch (part._tag) {
    case "Any":
      return true
    case "Exact":
      return part.value === subject
    case "Pattern":
      return glob.matches(part.pattern, subject)
  }
}

const matchesEntry = (entry: Entry, candidate: Candidate, glob: Glob): boolean =>
  entry.scheme === candidate.scheme &&
  (entry.host._tag === "Pattern"
    ? candidate.hostname !== "" && glob.matches(entry.host.pattern, candidate.hostname.split(".").join("/"))
    : matchesPart(entry.host, candidate.hostname, glob)) &&
  matchesPart(entry.port, candidate.port, glob) &&
  matchesPart(entry.path, candidate.path, glob) &&
  matchesPart(entry.query, candidate.query, glob)

const isSameSite = (site: Origin, candidate: Candidate): boolean =>
  site.scheme === candidate.scheme &&
  site.hostname === candidate.hostname &&
  (site.port === candidate.port || loopbackNames.has(candidate.hostname))

/**
 * Whether `redirectTo` may receive the user (and tokens) after an auth flow. Allowed: the site's
 * own origin (any port on a loopback site), a loopback IP literal over http(s) when the list
 * allows it, or a match with an entry. An IP-literal host is otherwise never allowed, and the
 * fragment never takes part, both as in Supabase Auth.
 */
export const isAllowed = (list: RedirectAllowList, redirectTo: string, glob: Glob): boolean =>
  Option.match(parseCandidate(redirectTo), {
    onNone: () => false,
    onSome: (candidate) => {
      if (Option.exists(list.site, (site) => isSameSite(site, candidate))) return true
      if (isIpLiteral(candidate.hostname)) {
        return list.allowLoopbackIp && isHttp(candidate.scheme) && isLoopbackIp(candidate.hostname)
      }
      return list.entries.some((entry) => matchesEntry(entry, candidate, glob))
    }
  })
