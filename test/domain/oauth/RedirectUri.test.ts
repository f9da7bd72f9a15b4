import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "fast-check"
import * as RedirectUri from "../../../domain/oauth/RedirectUri.js"

const valid = (uri: string) => Either.isRight(RedirectUri.validate(uri))

describe("RedirectUri.validate: accepted registrations", () => {
  it.each([
    "https://app.example.com/callback",
    "https://app.example.com:8443/callback?x=1",
    "https://example.com",
    "https://localhost/cb",
    "http://127.0.0.1/cb",
    "http://127.0.0.1:8080/cb",
    "http://[::1]/cb",
    "http://[::1]:51234/cb",
    "http://localhost/cb",
    "http://localhost:3000/callback",
    "http://localhost:65535/",
    // An app's own scheme (RFC 8252 §7.1), reverse-domain or not: Cursor registers the last.
    "com.example.app:/oauth2redirect/example-provider",
    "com.example.app://callback",
    "myapp://callback",
    "cursor://anysphere.cursor-mcp/oauth/callback"
  ])("%s", (uri) => {
    expect(RedirectUri.validate(uri)).toEqual(Either.right(uri))
  })
})

describe("RedirectUri.validate: refused registrations", () => {
  it.each([
    ["plain http on a public host", "http://example.com/cb"],
    ["plain http on a private IP", "http://192.168.1.10/cb"],
    ["plain http on another 127/8 address", "http://127.0.0.2/cb"],
    ["plain http on 0.0.0.0", "http://0.0.0.0/cb"],
    ["plain http on a localhost subdomain", "http://app.localhost/cb"],
    ["plain http on localhost.example.com", "http://localhost.example.com/cb"],
    ["a fragment", "https://app.example.com/cb#frag"],
    ["an empty fragment", "https://app.example.com/cb#"],
    ["a fragment on loopback", "http://127.0.0.1:8080/cb#x"],
    ["relative path", "/callback"],
    ["relative without slash", "callback"],
    ["protocol-relative", "//app.example.com/cb"],
    ["empty", ""],
    ["javascript", "javascript:alert(1)"],
    ["javascript with slashes", "javascript://app.example.com/%0aalert(1)"],
    ["data", "data:text/html,<script>alert(1)</script>"],
    ["javascript in capitals", "JAVASCRIPT:alert(1)"],
    ["javascript split by a tab", "java\tscript:alert(1)"],
    ["vbscript", "vbscript:msgbox(1)"],
    ["blob", "blob:https://app.example.com/0b2f"],
    ["about", "about:blank"],
    ["view-source", "view-source:https://app.example.com/"],
    ["file", "file:///etc/passwd"],
    ["ftp", "ftp://example.com/cb"],
    ["ws", "ws://127.0.0.1:8080/cb"],
    ["wss", "wss://app.example.com/cb"],
    ["mailto", "mailto:ada@example.com"],
    ["tel", "tel:+15550100"],
    ["an Android intent", "intent://cb#Intent;scheme=myapp;end"],
    ["the retired out-of-band flow", "urn:ietf:wg:oauth:2.0:oob"],
    ["a fragment on an app's scheme", "myapp://callback#x"],
    ["userinfo on an app's scheme", "myapp://user@callback"],
    ["userinfo", "https://user@app.example.com/cb"],
    ["userinfo with password", "https://user:pass@app.example.com/cb"],
    ["userinfo on loopback", "http://user@127.0.0.1/cb"]
  ])("%s: %j", (_, uri) => {
    expect(valid(uri)).toBe(false)
  })
})

describe("RedirectUri.matches", () => {
  it.each([
    // Exact string match.
    ["https://app.example.com/cb", "https://app.example.com/cb", true],
    ["https://app.example.com/cb?x=1", "https://app.example.com/cb?x=1", true],
    // RFC 8252 §7.3: a loopback http URI matches on any port, for each loopback host.
    ["http://127.0.0.1/cb", "http://127.0.0.1:51234/cb", true],
    ["http://127.0.0.1:8080/cb", "http://127.0.0.1:9090/cb", true],
    ["http://127.0.0.1:8080/cb", "http://127.0.0.1/cb", true],
    ["http://[::1]/cb", "http://[::1]:51234/cb", true],
    ["http://[::1]:8080/cb", "http://[::1]:9090/cb", true],
    ["http://[::1]:8080/cb", "http://[::1]/cb", true],
    ["http://localhost/cb", "http://localhost:51234/cb", true],
    ["http://localhost:3000/cb", "http://localhost:4000/cb", true],
    ["http://localhost:3000/cb", "http://localhost/cb", true],
    ["http://127.0.0.1:8080/cb?x=1", "http://127.0.0.1:1234/cb?x=1", true],
    // Loopback hosts never stand in for each other.
    ["http://127.0.0.1/cb", "http://localhost/cb", false],
    ["http://localhost/cb", "http://127.0.0.1/cb", false],
    ["http://127.0.0.1:8080/cb", "http://localhost:8080/cb", false],
    ["http://[::1]/cb", "http://127.0.0.1/cb", false],
    ["http://localhost/cb", "http://[::1]/cb", false],
    // Everything but the port must match exactly on loopback.
    ["http://127.0.0.1/cb", "http://127.0.0.1:8080/cb/", false],
    ["http://127.0.0.1/cb/", "http://127.0.0.1:8080/cb", false],
    ["http://127.0.0.1/cb", "http://127.0.0.1:8080/CB", false],
    ["http://127.0.0.1/cb", "http://127.0.0.1:8080/cb2", false],
    ["http://127.0.0.1/cb", "http://127.0.0.1:8080/cb?x=1", false],
    ["http://127.0.0.1/cb?x=1", "http://127.0.0.1:8080/cb?x=2", false],
    ["http://127.0.0.1/cb?x=1", "http://127.0.0.1:8080/cb", false],
    ["http://localhost/cb", "http://LOCALHOST:8080/cb", false],
    ["http://localhost/cb", "http://LOCALHOST/cb", false],
    ["http://localhost/a%2Fb", "http://localhost:8080/a/b", false],
    ["http://localhost/cb", "http://localhost:8080/cb/../cb", false],
    ["http://127.0.0.1:8080", "http://127.0.0.1:9090/", false],
    // https never gets the any-port exception, not even on loopback hosts.
    ["https://localhost/cb", "https://localhost:8443/cb", false],
    ["https://127.0.0.1:8443/cb", "https://127.0.0.1:9443/cb", false],
    ["https://app.example.com/cb", "https://app.example.com:8443/cb", false],
    ["https://app.example.com:443/cb", "https://app.example.com/cb", false],
    ["https://localhost/cb", "http://localhost/cb", false],
    ["http://localhost/cb", "https://localhost/cb", false],
    // Exact match elsewhere: path, query, case and trailing slash matter.
    ["https://app.example.com/cb", "https://app.example.com/cb/", false],
    ["https://app.example.com/cb/", "https://app.example.com/cb", false],
    ["https://app.example.com/cb", "https://app.example.com/CB", false],
    ["https://app.example.com/cb", "https://APP.example.com/cb", false],
    ["https://app.example.com/cb", "https://app.example.com/cb?x=1", false],
    ["https://app.example.com/cb?x=1", "https://app.example.com/cb?x=2", false],
    ["https://app.example.com/cb?a=1&b=2", "https://app.example.com/cb?b=2&a=1", false],
    ["https://app.example.com", "https://app.example.com/", false],
    ["https://app.example.com/cb", "https://app.example.com/cb?", false],
    // A presented fragment never matches.
    ["https://app.example.com/cb", "https://app.example.com/cb#x", false],
    ["https://app.example.com/cb", "https://app.example.com/cb#", false],
    ["http://127.0.0.1/cb", "http://127.0.0.1:8080/cb#x", false],
    ["http://127.0.0.1/cb", "http://127.0.0.1/cb#x", false],
    ["http://localhost:3000/cb", "http://localhost:4000/cb#", false],
    // An app's own scheme matches exactly: no port, path or case freedom.
    ["cursor://anysphere.cursor-mcp/oauth/callback", "cursor://anysphere.cursor-mcp/oauth/callback", true],
    ["cursor://anysphere.cursor-mcp/oauth/callback", "cursor://anysphere.cursor-mcp/oauth/callback/", false],
    ["cursor://anysphere.cursor-mcp/oauth/callback", "cursor://anysphere.cursor-mcp:1/oauth/callback", false],
    ["cursor://anysphere.cursor-mcp/oauth/callback", "CURSOR://anysphere.cursor-mcp/oauth/callback", false],
    ["com.example.app:/cb", "com.example.app:/cb", true],
    ["com.example.app:/cb", "com.example.app://cb", false],
    ["com.example.app:/cb", "com.example.evil:/cb", false]
  ])("registered %s, presented %s → %s", (registered, presented, expected) => {
    expect(RedirectUri.matches(registered, presented)).toBe(expected)
  })

  it("a presented URI with a fragment never matches, whatever is registered", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          "https://app.example.com/cb",
          "http://127.0.0.1/cb",
          "http://[::1]:8080/cb",
          "http://localhost/cb"
        ),
        fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        fc.string({ maxLength: 8 }),
        (registered, port, fragment) => {
          const url = new URL(registered)
          if (port !== undefined && url.protocol === "http:") url.port = String(port)
          const presented = `${url.href}#${fragment}`
          expect(RedirectUri.matches(registered, presented)).toBe(false)
          expect(RedirectUri.matchesAny([registered], presented)).toBe(false)
        }
      )
    )
  })

  it("a loopback http URI matches itself on every port", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("127.0.0.1", "[::1]", "localhost"),
        fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        fc.integer({ min: 1, max: 65535 }),
        fc.constantFrom("/", "/cb", "/cb/", "/a/b?x=1"),
        (host, registeredPort, presentedPort, path) => {
          const registered = `http://${host}${registeredPort === undefined ? "" : `:${registeredPort}`}${path}`
          expect(RedirectUri.matches(registered, `http://${host}:${presentedPort}${path}`)).toBe(true)
        }
      )
    )
  })
})

describe("RedirectUri.matchesAny", () => {
  const registered = ["https://app.example.com/cb", "http://127.0.0.1/cb"]
  it.each([
    ["https://app.example.com/cb", true],
    ["http://127.0.0.1:4321/cb", true],
    ["http://localhost:4321/cb", false],
    ["https://app.example.com/other", false]
  ])("%s → %s", (presented, expected) => {
    expect(RedirectUri.matchesAny(registered, presented)).toBe(expected)
  })

  it("nothing matches an empty registration", () => {
    expect(RedirectUri.matchesAny([], "https://app.example.com/cb")).toBe(false)
  })
})

describe("RedirectUri.validateAll", () => {
  it("answers the URIs without repeats, in their order, when every one is valid", () => {
    expect(
      RedirectUri.validateAll(["https://a.example/cb", "http://127.0.0.1/cb", "https://a.example/cb"])
    ).toEqual(Either.right(["https://a.example/cb", "http://127.0.0.1/cb"]))
  })

  it("answers the first refusal", () => {
    const result = RedirectUri.validateAll(["https://a.example/cb", "http://evil.example/cb", "/relative"])
    expect(Either.isLeft(result) && result.left.message).toBe(
      "redirect_uri must use https, or http on 127.0.0.1, [::1] or localhost"
    )
  })
})

describe("RedirectUri.destination", () => {
  it.each([
    ["https://app.example.com/cb", "web"],
    ["https://localhost/cb", "web"],
    ["http://127.0.0.1:53682/callback", "loopback"],
    ["http://[::1]/cb", "loopback"],
    ["http://localhost:3000/cb", "loopback"],
    ["cursor://anysphere.cursor-mcp/oauth/callback", "app"],
    ["com.example.app:/cb", "app"]
  ])("%s → %s", (uri, expected) => {
    expect(RedirectUri.destination(new URL(uri))).toBe(expected)
  })

  it.each([
    ["https://connector.example.com/cb", true],
    ["http://127.0.0.1:53682/callback", false],
    ["http://localhost/cb", false],
    ["cursor://anysphere.cursor-mcp/oauth/callback", false]
  ])("a consent given before stands for %s: %s (RFC 8252 §8.6)", (uri, expected) => {
    expect(RedirectUri.remembersConsent(new URL(uri))).toBe(expected)
  })

  it("names the scheme a refused app URI used", () => {
    const refused = RedirectUri.validate("vbscript:msgbox(1)")
    expect(Either.isLeft(refused) && refused.left.message).toBe(
      "redirect_uri scheme vbscript: is not allowed"
    )
  })
})
