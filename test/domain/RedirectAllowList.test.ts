import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as PicomatchGlob from "../../adapters/glob/PicomatchGlob.js"
import * as RedirectAllowList from "../../domain/RedirectAllowList.js"

const glob = PicomatchGlob.make()
const allowed = (siteUrl: string, allowList: string | ReadonlyArray<string>, redirectTo: string) =>
  RedirectAllowList.isAllowed(RedirectAllowList.make(siteUrl, allowList), redirectTo, glob)

describe("Glob contract (picomatch adapter)", () => {
  it.each([
    ["/*", "/a", true],
    ["/*", "/a/b", false],
    ["/*", "/.well-known", true],
    ["/app*", "/app", true],
    ["/app*", "/application", true],
    ["/**", "/", true],
    ["/**", "/a/b/c", true],
    ["/a/**/z", "/a/z", true],
    ["/a/**/z", "/a/b/c/z", true],
    ["/{a,b}", "/b", true],
    ["/{a,b}", "/c", false],
    ["*/example/com", "a/example/com", true],
    ["*/example/com", "a/b/example/com", false],
    ["*/example/com", "example/com", false],
    // Everything outside `*`, `**` and braces is literal.
    ["/a?c", "/abc", false],
    ["/a?c", "/a?c", true],
    ["/[ab]", "/a", false],
    ["/[ab]", "/[ab]", true],
    ["/a(b)*", "/a(b)c", true],
    ["/(a|b)", "/a", false],
    ["/+(a)", "/a", false],
    ["/@(a)*", "/@(a)x", true],
    ["/!(a)", "/b", false],
    ["!/a", "/b", false],
    ["/a$*", "/a$b", true],
    ["/a\\*", "/a\\b", true],
    ["/a\\*", "/a*", false]
  ])("%j matches %j → %s", (pattern, subject, expected) => {
    expect(glob.matches(pattern, subject)).toBe(expected)
  })
})

describe("RedirectAllowList: the site URL", () => {
  it.each([
    ["https://example.com", "https://example.com", true],
    ["https://example.com", "https://example.com/path?x=1#frag", true],
    ["https://example.com", "https://EXAMPLE.com/", true],
    ["https://example.com", "https://example.com:443/p", true],
    ["https://example.com", "http://example.com/path", false],
    ["http://example.com", "https://example.com/path", false],
    ["https://example.com", "https://example.com:8443/path", false],
    ["https://example.com:9000", "https://example.com:9000/path", true],
    ["https://example.com:9000", "https://example.com/path", false],
    ["https://example.com:9000", "https://example.com:9001/path", false],
    ["https://example.com", "https://sub.example.com/", false],
    ["https://example.com", "https://example.com.evil.com/", false],
    ["https://example.com", "https://evil.com/example.com", false],
    ["https://example.com", "https://example.com@evil.com/", false],
    ["https://example.com", "https://evil.com#@example.com", false],
    ["https://example.com", "https://evil.com?@example.com", false],
    ["http://localhost:3000", "http://localhost:8080/callback", true],
    ["http://localhost:3000", "http://localhost/callback", true],
    ["http://127.0.0.1:3000", "http://127.0.0.1:8080/callback", true],
    ["https://localhost:3000", "http://localhost:8080/callback", false],
    ["http://192.168.1.10:3000", "http://192.168.1.10:3000/cb", true],
    ["http://192.168.1.10:3000", "http://192.168.1.10:3001/cb", false],
    ["not a url", "https://example.com/", false]
  ])("site %s, redirect %s → %s", (site, redirect, expected) => {
    expect(allowed(site, "", redirect)).toBe(expected)
  })
})

describe("RedirectAllowList: candidates that never pass", () => {
  const site = "https://example.com"
  const list = "https://*.example.com/**,https://example.com/**,myapp://**"
  it.each([
    ["empty", ""],
    ["relative", "/path"],
    ["protocol-relative", "//example.com/path"],
    ["backslash authority", "/\\example.com"],
    ["backslash in the authority", "https://evil.com\\.example.com/"],
    ["backslash in the path", "https://example.com\\@evil.com"],
    ["leading tab", "\thttps://example.com/"],
    ["embedded newline", "https://exa\nmple.com/"],
    ["embedded tab in host", "https://evil.com\t.example.com/"],
    ["space", "https://example.com/a b"],
    ["NUL", "https://example.com/\u0000"],
    ["DEL", "https://example.com/\u007f"],
    ["credentials", "https://user@example.com/"],
    ["credentials with password", "https://user:pass@example.com/"],
    ["empty credentials", "https://@example.com/"],
    ["javascript", "javascript:alert(1)"],
    ["javascript with a matching-looking host", "javascript://a.example.com/%0aalert(1)"],
    ["data", "data:text/html,<script>alert(1)</script>"],
    ["vbscript", "vbscript:msgbox(1)"],
    ["file", "file:///etc/passwd"],
    ["unparsable port", "https://example.com:99999/"],
    ["unparsable percent host", "https://exa%zzmple.com/"],
    ["encoded slash in host", "https://evil.com%2F.example.com/"],
    ["decimal IP", "http://2130706433/"],
    ["underscore in host", "https://a_b.example.com/"],
    ["trailing-dot host", "https://a.example.com./"],
    ["non-loopback IP", "http://10.0.0.1/"],
    ["unparsable custom scheme", "com.my_app://callback"],
    ["no slashes", "https:a.example.com/"],
    ["no slashes, empty user", "https:@a.example.com/"],
    ["three slashes", "https:///a.example.com/"],
    ["one slash", "https:/a.example.com/"],
    ["decimal IP without slashes", "http:2130706433/"],
    ["percent-encoded @ in host", "https://a.example.com%40evil.com/"],
    ["double-encoded @ in host", "https://a.example.com%2540evil.com/"],
    ["empty password", "https://:@a.example.com/"]
  ])("%s: %j", (_, redirect) => {
    expect(allowed(site, list, redirect)).toBe(false)
  })
})

describe("RedirectAllowList: fuzzing the wildcard host", () => {
  const list = RedirectAllowList.make("https://site.test", "https://*.example.com/**")
  const tricky = fc.constantFrom(
    ..."?#@/\\.:%2F40.example.com-_a ".split(""),
    ".example.com",
    "%2e",
    "%40",
    "@"
  )

  it("allows a URL only when a browser would land on a subdomain of example.com", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("https://evil.com", "https://", "https://a"),
        fc.array(tricky, { maxLength: 12 }),
        (start, parts) => {
          const redirect = start + parts.join("")
          if (RedirectAllowList.isAllowed(list, redirect, glob)) {
            const url = new URL(redirect)
            expect(url.hostname.endsWith(".example.com")).toBe(true)
            expect(url.hostname.split(".")).toHaveLength(3)
            expect(url.username + url.password).toBe("")
          }
        }
      ),
      { numRuns: 2000 }
    )
  })
})

describe("RedirectAllowList: wildcard host labels", () => {
  const list = "https://*.example.com"
  it.each([
    ["https://app.example.com", true],
    ["https://app.example.com/", true],
    ["https://APP.Example.COM", true],
    ["https://app.example.com:443", true],
    ["https://app.example.com/path", false],
    ["https://app.example.com?x=1", false],
    ["https://app.example.com#fragment", true],
    ["https://example.com", false],
    ["https://a.b.example.com", false],
    ["http://app.example.com", false],
    ["https://app.example.com:8443", false],
    ["https://app.example.com.evil.com", false],
    ["https://appexample.com", false],
    ["https://evil.com?.example.com", false],
    ["https://evil.com#.example.com", false],
    ["https://user@evil.com/.example.com", false],
    ["https://evil.com/.example.com", false],
    ["https://evil.com\\.example.com", false],
    ["https://evil.com%2F.example.com", false],
    ["https://evil.com%23.example.com", false],
    ["https://evil.com:443.example.com", false],
    ["https://evil.com&.example.com", false],
    ["https://localhost?.example.com", false],
    ["https://2130706433?.example.com", false],
    ["https://example.com.evil.com?.example.com", false],
    ["https://app.example.com@evil.com", false],
    ["https://*.example.com", false]
  ])("%j → %s", (redirect, expected) => {
    expect(allowed("https://site.test", list, redirect)).toBe(expected)
  })

  it.each([
    ["https://**.example.com/**", "https://a.b.example.com/x", true],
    ["https://**.example.com/**", "https://evil.com/.example.com", false],
    ["https://*-preview.vercel.app/**", "https://pr-42-preview.vercel.app/auth/callback", true],
    ["https://*-preview.vercel.app/**", "https://evil.com?-preview.vercel.app/", false],
    ["https://*-preview.vercel.app/**", "https://a.b-preview.vercel.app/", false],
    ["https://{app,admin}.example.com", "https://admin.example.com", true],
    ["https://{app,admin}.example.com", "https://evil.example.com", false],
    ["https://*.example.com:*", "https://a.example.com:8443", true],
    ["https://*.example.com:*", "https://a.example.com", true],
    ["https://*.example.com:84*", "https://a.example.com:8443", true],
    ["https://*.example.com:84*", "https://a.example.com:9443", false],
    ["https://*.example.com:8443/**", "https://a.example.com:8443/cb", true],
    ["https://*.example.com:8443/**", "https://a.example.com/cb", false],
    ["https://*.Example.COM/**", "https://a.example.com/cb", true],
    ["HTTPS://*.example.com/**", "https://a.example.com/cb", true],
    ["https://*/**", "https://localhost/cb", true],
    ["https://*/**", "https://a.example.com/cb", false]
  ])("entry %s, redirect %s → %s", (entry, redirect, expected) => {
    expect(allowed("https://site.test", [entry], redirect)).toBe(expected)
  })
})

describe("RedirectAllowList: path and query wildcards", () => {
  it.each([
    ["http://localhost:3000/**", "http://localhost:3000/", true],
    ["http://localhost:3000/**", "http://localhost:3000", true],
    ["http://localhost:3000/**", "http://localhost:3000/a/b/c?next=/x#f", true],
    ["http://localhost:3000/**", "http://localhost:3001/", false],
    ["https://example.com/*", "https://example.com/callback", true],
    ["https://example.com/*", "https://example.com/callback?code=1", true],
    ["https://example.com/*", "https://example.com/index.html", true],
    ["https://example.com/*", "https://example.com/a/b", false],
    ["https://example.com/*", "https://example.com/a%2Fb", true],
    ["https://example.com/app/*", "https://example.com/app/x", true],
    ["https://example.com/app/*", "https://example.com/app/../admin", false],
    ["https://example.com/app/*", "https://example.com/app/%2e%2e/admin", false],
    ["https://example.com/app/*", "https://example.com/other/x", false],
    ["https://example.com/app/**", "https://example.com/app/a/b", true],
    ["https://example.com/app/**", "https://example.com/application", false],
    ["https://example.com/app/*/done", "https://example.com/app/x/done", true],
    ["https://example.com/app/*/done", "https://example.com/app/x/done?y=1", false],
    ["https://example.com/cb?next=*", "https://example.com/cb?next=home", true],
    ["https://example.com/cb?next=*", "https://example.com/cb?next=/evil", false],
    ["https://example.com/cb?next=*", "https://example.com/cb", false],
    ["https://example.com/**/cb", "https://example.com/a/b/cb", true]
  ])("entry %s, redirect %s → %s", (entry, redirect, expected) => {
    expect(allowed("https://site.test", [entry], redirect)).toBe(expected)
  })
})

describe("RedirectAllowList: exact entries", () => {
  it.each([
    ["https://app.example.com/callback", "https://app.example.com/callback", true],
    ["https://app.example.com/callback", "https://app.example.com/callback#token=x", true],
    ["https://app.example.com/callback", "https://APP.example.com:443/callback", true],
    ["https://app.example.com/callback", "https://app.example.com/./callback", true],
    ["https://app.example.com/callback", "https://app.example.com/callback/", false],
    ["https://app.example.com/callback", "https://app.example.com/callback/x", false],
    ["https://app.example.com/callback", "https://app.example.com/callbackx", false],
    ["https://app.example.com/callback", "https://app.example.com/callback?x=1", false],
    ["https://app.example.com/callback", "http://app.example.com/callback", false],
    ["https://app.example.com", "https://app.example.com/", true],
    ["https://app.example.com", "https://app.example.com/anything", false],
    ["https://app.example.com/cb?a=1", "https://app.example.com/cb?a=1", true],
    ["https://app.example.com/cb?a=1", "https://app.example.com/cb?a=2", false],
    ["https://bücher.example/cb", "https://xn--bcher-kva.example/cb", true],
    ["myapp://callback", "myapp://callback", true],
    ["myapp://callback", "myapp://CALLBACK", true],
    ["myapp://callback", "myapp://callback/", false],
    ["myapp://callback", "otherapp://callback", false],
    ["io.supabase.app://login-callback/", "io.supabase.app://login-callback/", true],
    ["com.example.app:/oauth2redirect", "com.example.app:/oauth2redirect", true],
    ["com.example.app:/oauth2redirect", "com.example.app:/evil", false]
  ])("entry %s, redirect %s → %s", (entry, redirect, expected) => {
    expect(allowed("https://site.test", [entry], redirect)).toBe(expected)
  })
})

describe("RedirectAllowList: custom schemes with wildcards", () => {
  it.each([
    ["myapp://**", "myapp://callback", true],
    ["myapp://**", "myapp://callback/a/b?x=1", true],
    ["myapp://**", "otherapp://callback", false],
    ["myapp://**", "javascript://callback", false],
    ["myapp://*", "myapp://callback", true],
    ["myapp://*", "myapp://a.b", false],
    ["myapp://*", "myapp://callback/x", false],
    ["myapp://*.example/**", "myapp://a.example/x/y", true],
    ["https://**", "https://anything.example/x?y=1", true]
  ])("entry %s, redirect %s → %s", (entry, redirect, expected) => {
    expect(allowed("https://site.test", [entry], redirect)).toBe(expected)
  })
})

describe("RedirectAllowList: IP addresses, as in Supabase Auth", () => {
  it.each([
    ["http://127.0.0.1:54321/callback", true],
    ["http://127.0.0.1/", true],
    ["https://127.0.0.1:8443/x", true],
    ["http://[::1]:8080/cb", true],
    ["http://127.1:8080/cb", false],
    ["http://0x7f.0.0.1/cb", false],
    ["http://2130706433/cb", false],
    ["http://127.0.0.01/cb", false],
    ["myapp://127.0.0.1/cb", false],
    ["http://10.0.0.1/", false],
    ["http://192.168.1.10:3000/", false],
    ["http://[2001:db8::1]/", false]
  ])("%s → %s", (redirect, expected) => {
    expect(allowed("https://site.test", "http://192.168.1.10:3000/**", redirect)).toBe(expected)
  })

  it("can refuse loopback IP literals", () => {
    const list = RedirectAllowList.make("https://site.test", "", { allowLoopbackIp: false })
    expect(RedirectAllowList.isAllowed(list, "http://127.0.0.1:54321/callback", glob)).toBe(false)
  })
})

describe("RedirectAllowList.make", () => {
  it("splits the comma-separated value and trims entries", () => {
    const list = RedirectAllowList.make("https://site.test", " https://a.example.com/** , ,myapp://cb,")
    expect(list.entries.map((entry) => entry.source)).toEqual(["https://a.example.com/**", "myapp://cb"])
    expect(list.ignored).toEqual([])
  })

  it.each([
    "example.com",
    "*.example.com",
    "*://example.com",
    "https://user@*.example.com",
    "https://user@example.com/cb",
    "https://*.example.com/#/cb",
    "https://example.com/#/cb",
    "https://[::1]:3000/**",
    "http://192.168.1.10:3000/**",
    "http://10.0.0.*/**",
    "javascript:*",
    "data:*",
    "https://*..example.com",
    "https://*.exämple.com",
    "https://*.example.com:abc",
    "https:///**",
    "com.my_app://callback"
  ])("ignores %j", (entry) => {
    const list = RedirectAllowList.make("https://site.test", [entry])
    expect(list.ignored).toEqual([entry])
    expect(list.entries).toEqual([])
  })
})
