import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as client from "openid-client"
import * as Destination from "../../../adapters/outbound/Destination.js"
import * as GuardedFetch from "../../../adapters/outbound/GuardedFetch.js"
import { DestinationRefused, DestinationUnreachable } from "../../../adapters/outbound/OutboundFailure.js"
import * as PrivateAddresses from "../../../adapters/outbound/PrivateAddresses.js"
import * as DocumentServer from "../../support/oauth/DocumentServer.js"
import { allowed, refused } from "../../support/outbound/Addresses.js"
import * as Allowed from "../../support/outbound/Allowed.js"
import * as RecordingServer from "../../support/outbound/RecordingServer.js"

/** A resolver answering from `table` (a function: an answer per call), recording what it was asked. */
const resolverOf = (table: (hostname: string, call: number) => ReadonlyArray<string> | undefined) => {
  const asked: Array<string> = []
  const resolve: Destination.Resolver = (hostname) =>
    Effect.suspend(() => {
      asked.push(hostname)
      const answer = table(hostname, asked.filter((name) => name === hostname).length)
      return answer === undefined
        ? Effect.fail(
            new DestinationUnreachable({
              host: hostname,
              code: "ENOTFOUND",
              message: `cannot resolve ${hostname}: ENOTFOUND`
            })
          )
        : Effect.succeed(answer)
    })
  return { resolve, asked }
}

/** A resolver that must not be asked: the test fails through `asked` if it is. */
const noDns = () => resolverOf(() => undefined)

const literalUrl = (address: string, path = "/") =>
  address.includes(":") ? `https://[${address}]${path}` : `https://${address}${path}`

/** Addresses a URL can hold literally: the `invalid` examples are not addresses at all. */
const literalClasses = refused.filter(([range]) => range !== "invalid")

/** Each refused address under a name of its own: `refused-0.test`, `refused-1.test`, … */
const namedClasses = literalClasses.map(([range, address], index) => ({
  range,
  address,
  name: `refused-${index}.test`
}))
const namesTable = new Map(namedClasses.map(({ name, address }) => [name, [address]]))

describe("GuardedFetch: what is refused", () => {
  it.effect("refuses every forbidden class of address written literally, without resolving anything", () =>
    Effect.gen(function* () {
      const dns = noDns()
      for (const [range, address] of literalClasses) {
        const error = yield* Effect.flip(
          GuardedFetch.request({ url: literalUrl(address) }, { resolve: dns.resolve })
        )
        expect(error._tag, address).toBe("DestinationRefused")
        expect(error.message, address).toContain(`resolves to a ${range} address`)
      }
      expect(dns.asked).toEqual([])
    })
  )

  it.effect("reads legacy spellings of an address as the URL parser does: 127.1, 0x7f.1, 2130706433", () =>
    Effect.gen(function* () {
      for (const url of [
        "https://127.1/",
        "https://0x7f.1/",
        "https://2130706433/",
        "https://017700000001/",
        "https://[::ffff:7f00:1]/",
        "https://[0:0:0:0:0:ffff:127.0.0.1]/"
      ]) {
        const error = yield* Effect.flip(GuardedFetch.request({ url }, { resolve: noDns().resolve }))
        expect(error.message, url).toContain("resolves to a loopback address")
      }
    })
  )

  it.effect("refuses a host name that resolves to any forbidden address", () =>
    Effect.gen(function* () {
      const dns = resolverOf((name) => namesTable.get(name))
      for (const { range, name } of namedClasses) {
        const error = yield* Effect.flip(
          GuardedFetch.request({ url: `https://${name}/` }, { resolve: dns.resolve })
        )
        expect(error._tag, name).toBe("DestinationRefused")
        expect(error.message, name).toBe(`${name} resolves to a ${range} address, which is not contacted`)
      }
      expect(dns.asked).toEqual(namedClasses.map(({ name }) => name))
    })
  )

  it.effect("passes public addresses, and hands the connection every address it checked", () =>
    Effect.gen(function* () {
      // The check alone, so that no connection leaves the machine.
      for (const address of allowed) {
        const destination = yield* Destination.check(new URL("https://public.test/"), {
          allowedPrivateAddresses: PrivateAddresses.none,
          resolve: resolverOf(() => [address, "93.184.215.14"]).resolve
        })
        expect(destination.addresses.map((entry) => entry.address)).toEqual([address, "93.184.215.14"])
        expect(destination.hostname).toBe("public.test")
        expect(destination.port).toBe(443)
      }
    })
  )

  it.scoped(
    "refuses a name whose answers mix a public or allowed address with a forbidden one, before connecting",
    () =>
      Effect.gen(function* () {
        const server = yield* RecordingServer.start({ "/": RecordingServer.answer(200, "reached") })
        const dns = resolverOf(() => ["127.0.0.1", "10.0.0.1"])
        const error = yield* Effect.flip(
          GuardedFetch.request(
            { url: `http://mixed.test:${server.port}/` },
            { resolve: dns.resolve, allowedPrivateAddresses: Allowed.localhost }
          )
        )
        expect(error.message).toContain("mixed.test resolves to a private address")
        expect(server.connections()).toBe(0)
      })
  )

  it.scoped("refuses loopback unless the operator's list names the address, whatever the port", () =>
    Effect.gen(function* () {
      const server = yield* RecordingServer.start({ "/": RecordingServer.answer(200, "reached") })
      const dns = resolverOf((name) => (name === "localhost" ? ["127.0.0.1", "::1"] : undefined))
      const attempts: ReadonlyArray<readonly [string, PrivateAddresses.AllowList]> = [
        [server.origin, PrivateAddresses.none],
        [`https://127.0.0.1:${server.port}/`, PrivateAddresses.none],
        [`http://localhost:${server.port}/`, PrivateAddresses.none],
        [server.origin, Allowed.allowing("127.0.0.2", "10.0.0.0/8")],
        // Every address of the name must be listed: ::1 is not.
        [`http://localhost:${server.port}/`, Allowed.localhost]
      ]
      for (const [url, allowedPrivateAddresses] of attempts) {
        const error = yield* Effect.flip(
          GuardedFetch.request({ url }, { resolve: dns.resolve, allowedPrivateAddresses })
        )
        expect(error._tag, url).toBe("DestinationRefused")
      }
      expect(server.connections()).toBe(0)
      // Listed, alone or in a range, it is reached, under its address or under a name.
      for (const [url, list] of [
        [server.origin, Allowed.localhost],
        [server.origin, Allowed.allowing("127.0.0.0/8")],
        [`http://localhost:${server.port}/`, Allowed.allowing("127.0.0.1", "::1")]
      ] as const) {
        const reached = yield* GuardedFetch.request(
          { url },
          { resolve: dns.resolve, allowedPrivateAddresses: list }
        )
        expect(GuardedFetch.text(reached), url).toBe("reached")
      }
    })
  )

  it.effect("refuses cloud metadata services by name, without resolving them", () =>
    Effect.gen(function* () {
      const dns = noDns()
      for (const url of [
        "https://metadata.google.internal/computeMetadata/v1/",
        "https://METADATA.google.internal./computeMetadata/v1/",
        "https://metadata/computeMetadata/v1/",
        "https://metadata.goog/",
        "https://instance-data/latest/meta-data/"
      ]) {
        const error = yield* Effect.flip(GuardedFetch.request({ url }, { resolve: dns.resolve }))
        expect(error.message, url).toContain("is a cloud metadata service, which is never contacted")
      }
      expect(dns.asked).toEqual([])
    })
  )

  it.effect("refuses other schemes and plain http, and URLs with user information, without resolving", () =>
    Effect.gen(function* () {
      const dns = resolverOf(() => ["93.184.215.14"])
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["http://public.test/", "only https destinations are contacted"],
        ["ftp://public.test/", "only https destinations are contacted"],
        ["file:///etc/passwd", "only https destinations are contacted"],
        ["https://user:hunter2@public.test/", "the URL must not carry user information"],
        ["not a url", "the destination is not a URL"]
      ]
      for (const [url, message] of cases) {
        const error = yield* Effect.flip(GuardedFetch.request({ url }, { resolve: dns.resolve }))
        expect(error).toBeInstanceOf(DestinationRefused)
        expect(error.message).toBe(message)
        expect(JSON.stringify(error)).not.toContain("hunter2")
      }
      expect(dns.asked).toEqual([])
    })
  )

  it.scoped("refuses every forbidden destination reached through a redirect, and contacts none of them", () =>
    Effect.gen(function* () {
      // The one server the list allows (127.0.0.1) redirects to each target in turn; the
      // internal server is a loopback service on an address the list does not name (127.0.0.2),
      // reachable only by those redirects.
      const entry = yield* RecordingServer.start({ "/to": RecordingServer.redirectToQuery })
      const internal = yield* RecordingServer.start(
        { "/": RecordingServer.answer(200, "internal") },
        { host: "127.0.0.2" }
      )
      const dns = resolverOf((name) =>
        name === "internal.test" || name === "localhost"
          ? ["127.0.0.2"]
          : name === "public.test"
            ? ["93.184.215.14"]
            : namesTable.get(name)
      )
      const targets = [
        // The entry's own address is listed: every other refused one is a target.
        ...literalClasses
          .filter(([, address]) => !PrivateAddresses.includes(Allowed.localhost, address))
          .map(([, address]) => literalUrl(address, "/latest/meta-data/")),
        ...namedClasses
          .filter(({ address }) => !PrivateAddresses.includes(Allowed.localhost, address))
          .map(({ name }) => `https://${name}/`),
        `https://127.0.0.2:${internal.port}/`,
        `http://127.0.0.2:${internal.port}/`,
        `http://localhost:${internal.port}/`,
        `https://internal.test:${internal.port}/`,
        `http://[::ffff:127.0.0.2]:${internal.port}/`,
        "http://2130706434/",
        "https://metadata.google.internal/computeMetadata/v1/",
        "http://public.test/"
      ]
      for (const target of targets) {
        const error = yield* Effect.flip(
          GuardedFetch.request(
            { url: `${entry.origin}/to?to=${encodeURIComponent(target)}` },
            { resolve: dns.resolve, allowedPrivateAddresses: Allowed.localhost }
          )
        )
        expect(error._tag, target).toBe("DestinationRefused")
      }
      expect(entry.requests()).toHaveLength(targets.length)
      expect(internal.connections()).toBe(0)
    })
  )
})

describe("GuardedFetch: the operator's private addresses (OUTBOUND_ALLOWED_PRIVATE_ADDRESSES)", () => {
  const list = Allowed.allowing("10.0.0.0/8", "fd00::/8", "192.168.1.20")
  const checked = (url: string, answers: ReadonlyArray<string>, allowedPrivateAddresses = list) =>
    Destination.check(new URL(url), { allowedPrivateAddresses, resolve: resolverOf(() => answers).resolve })

  it.effect("lets through a name whose every address lies in a listed range, over https or plain http", () =>
    Effect.gen(function* () {
      for (const [url, answers] of [
        ["https://keycloak.internal/realms/acme", ["10.1.2.3"]],
        ["http://keycloak.internal:8080/realms/acme", ["10.1.2.3", "10.200.0.1"]],
        ["http://keycloak.internal:8080/", ["fd12:3456::1"]],
        ["http://templates.internal/", ["192.168.1.20"]],
        // A public address beside a listed one, over https: each passes on its own.
        ["https://both.internal/", ["10.1.2.3", "93.184.215.14"]]
      ] as const) {
        const destination = yield* checked(url, answers)
        expect(
          destination.addresses.map((entry) => entry.address),
          url
        ).toEqual(answers)
      }
    })
  )

  it.effect("refuses an address outside every listed range, and says which variable would list it", () =>
    Effect.gen(function* () {
      for (const [url, answers, message] of [
        [
          "https://keycloak.internal/",
          ["192.168.1.21"],
          "keycloak.internal resolves to a private address, which is not contacted unless OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists it"
        ],
        [
          "https://keycloak.internal/",
          ["127.0.0.1"],
          "keycloak.internal resolves to a loopback address, which is not contacted unless OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists it"
        ],
        [
          "http://keycloak.internal/",
          ["172.16.0.1"],
          "keycloak.internal resolves to a private address; plain http goes only to private addresses OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists"
        ],
        // A public address is reached over https only, listed or not.
        [
          "http://public.test/",
          ["93.184.215.14"],
          "public.test resolves to a unicast address; plain http goes only to private addresses OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists"
        ]
      ] as const) {
        const error = yield* Effect.flip(checked(url, answers))
        expect(error._tag, url).toBe("DestinationRefused")
        expect(error.message, url).toBe(message)
      }
    })
  )

  it.effect("refuses a name whose answers mix a listed address with a refused one, over either scheme", () =>
    Effect.gen(function* () {
      for (const [url, answers] of [
        ["https://mixed.internal/", ["10.1.2.3", "192.168.7.7"]],
        ["https://mixed.internal/", ["192.168.7.7", "10.1.2.3"]],
        ["http://mixed.internal/", ["10.1.2.3", "127.0.0.1"]],
        // Plain http: the public address beside the listed one is not reached in the clear.
        ["http://mixed.internal/", ["10.1.2.3", "93.184.215.14"]]
      ] as const) {
        const error = yield* Effect.flip(checked(url, answers))
        expect(error._tag, `${url} ${answers.join(",")}`).toBe("DestinationRefused")
      }
    })
  )

  it.effect(
    "refuses cloud metadata addresses inside a listed range, and metadata names, whatever the list",
    () =>
      Effect.gen(function* () {
        const everything = Allowed.allowing("0.0.0.0/0", "::/0")
        for (const address of [
          "169.254.169.254",
          "169.254.170.2",
          "fd00:ec2::254",
          "100.100.100.200",
          "::ffff:169.254.169.254",
          "64:ff9b::a9fe:a9fe"
        ]) {
          for (const scheme of ["https", "http"]) {
            const error = yield* Effect.flip(checked(`${scheme}://metadata.test/`, [address], everything))
            expect(error._tag, address).toBe("DestinationRefused")
            expect(error.message, address).toContain("cloudMetadata address")
          }
        }
        // Its neighbours in the same listed range pass.
        const neighbour = yield* checked(
          "http://link.test/",
          ["169.254.1.1"],
          Allowed.allowing("169.254.0.0/16")
        )
        expect(neighbour.addresses.map((entry) => entry.address)).toEqual(["169.254.1.1"])
        const dns = noDns()
        for (const url of [
          "https://metadata.google.internal/",
          "http://metadata/",
          "http://instance-data/"
        ]) {
          const error = yield* Effect.flip(
            GuardedFetch.request({ url }, { resolve: dns.resolve, allowedPrivateAddresses: everything })
          )
          expect(error.message, url).toContain("is a cloud metadata service, which is never contacted")
        }
        expect(dns.asked).toEqual([])
      })
  )

  it.effect("judges an IPv4-mapped IPv6 address as the IPv4 address it carries, listed either way", () =>
    Effect.gen(function* () {
      for (const [answer, allowed] of [
        ["::ffff:10.1.2.3", list],
        ["10.1.2.3", Allowed.allowing("::ffff:10.0.0.0/104")],
        ["::ffff:10.1.2.3", Allowed.allowing("::ffff:10.0.0.0/104")]
      ] as const) {
        const destination = yield* checked("http://mapped.internal/", [answer], allowed)
        expect(
          destination.addresses.map((entry) => entry.address),
          answer
        ).toEqual([answer])
      }
      for (const answer of ["::ffff:192.168.1.21", "::ffff:127.0.0.1"]) {
        const error = yield* Effect.flip(checked("http://mapped.internal/", [answer]))
        expect(error._tag, answer).toBe("DestinationRefused")
      }
      // NAT64 goes to a translator, not the listed host: only a listed IPv6 range takes it.
      const nat64 = yield* Effect.flip(checked("https://nat64.internal/", ["64:ff9b::a01:203"]))
      expect(nat64.message).toContain("resolves to a nat64-private address")
    })
  )

  it.scoped(
    "reaches a listed loopback server over plain http, and refuses its redirect to one not listed",
    () =>
      Effect.gen(function* () {
        const internal = yield* RecordingServer.start(
          { "/": RecordingServer.answer(200, "internal") },
          { host: "127.0.0.2" }
        )
        const entry = yield* RecordingServer.start({
          "/to": RecordingServer.redirectToQuery,
          "/here": RecordingServer.answer(200, "entry")
        })
        const options = { allowedPrivateAddresses: Allowed.localhost }
        const reached = yield* GuardedFetch.request({ url: `${entry.origin}/here` }, options)
        expect(GuardedFetch.text(reached)).toBe("entry")
        const error = yield* Effect.flip(
          GuardedFetch.request(
            { url: `${entry.origin}/to?to=${encodeURIComponent(`${internal.origin}/`)}` },
            options
          )
        )
        expect(error._tag).toBe("DestinationRefused")
        expect(error.message).toBe(
          "127.0.0.2 resolves to a loopback address; plain http goes only to private addresses OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists"
        )
        expect(internal.connections()).toBe(0)
        // Listed too, the same redirect is followed.
        const followed = yield* GuardedFetch.request(
          { url: `${entry.origin}/to?to=${encodeURIComponent(`${internal.origin}/`)}` },
          { allowedPrivateAddresses: Allowed.allowing("127.0.0.1", "127.0.0.2") }
        )
        expect(GuardedFetch.text(followed)).toBe("internal")
      })
  )

  it.effect("with no list, refuses plain http before resolving; with one, resolves and judges it", () =>
    Effect.gen(function* () {
      const dns = resolverOf(() => ["93.184.215.14"])
      const none = yield* Effect.flip(
        GuardedFetch.request({ url: "http://public.test/" }, { resolve: dns.resolve })
      )
      expect(none.message).toBe("only https destinations are contacted")
      // An empty list read from its variable says which one would let plain http through.
      const empty = yield* Effect.flip(
        GuardedFetch.request(
          { url: "http://public.test/" },
          { resolve: dns.resolve, allowedPrivateAddresses: Allowed.allowing() }
        )
      )
      expect(empty.message).toBe(
        "only https destinations are contacted: plain http goes only to private addresses OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists, and it lists none"
      )
      expect(dns.asked).toEqual([])
      const listed = yield* Effect.flip(
        GuardedFetch.request(
          { url: "ftp://public.test/" },
          { resolve: dns.resolve, allowedPrivateAddresses: list }
        )
      )
      expect(listed.message).toBe(
        "only https destinations are contacted, and plain http ones at private addresses OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists"
      )
      expect(dns.asked).toEqual([])
    })
  )
})

describe("GuardedFetch: the connection goes to the checked address", () => {
  it.scoped("a resolver that answers differently on its second call does not move the connection", () =>
    Effect.gen(function* () {
      const first = yield* RecordingServer.start({ "/": RecordingServer.answer(200, "first") })
      const second = yield* RecordingServer.start(
        { "/": RecordingServer.answer(200, "second") },
        { host: "127.0.0.2", port: first.port }
      )
      // The first answer is checked and connected to; any later one would be the rebinding.
      const dns = resolverOf((_name, call) => (call === 1 ? ["127.0.0.1"] : ["127.0.0.2"]))
      const options = { resolve: dns.resolve, allowedPrivateAddresses: Allowed.allowing("127.0.0.0/8") }
      const url = `http://pinned.test:${first.port}/`
      const answer = yield* GuardedFetch.request({ url }, options)
      expect(GuardedFetch.text(answer)).toBe("first")
      expect(dns.asked).toEqual(["pinned.test"])
      expect(first.connections()).toBe(1)
      expect(second.connections()).toBe(0)
      // The second address is reachable: a new call, checked anew, goes there.
      expect(GuardedFetch.text(yield* GuardedFetch.request({ url }, options))).toBe("second")
      expect(second.connections()).toBe(1)
      expect(first.connections()).toBe(1)
    })
  )

  it.scoped("TLS still verifies the certificate against the URL's host name, not the address", () =>
    Effect.gen(function* () {
      const server = yield* DocumentServer.start({
        "/": (_request, response) => {
          response.writeHead(200, { "content-type": "text/plain" })
          response.end("tls")
        }
      })
      const port = new URL(server.origin).port
      const dns = resolverOf(() => ["127.0.0.1"])
      const options = {
        resolve: dns.resolve,
        ca: [server.cert],
        allowedPrivateAddresses: Allowed.localhost
      }
      // The certificate names localhost: reached through the pinned address.
      const answer = yield* GuardedFetch.request({ url: `https://localhost:${port}/` }, options)
      expect(GuardedFetch.text(answer)).toBe("tls")
      // Same address, a name the certificate does not hold: refused by TLS.
      const error = yield* Effect.flip(
        GuardedFetch.request({ url: `https://elsewhere.test:${port}/` }, options)
      )
      expect(error._tag).toBe("DestinationUnreachable")
      expect(error.message).toMatch(/altnames|certificate/i)
    })
  )
})

describe("GuardedFetch: limits", () => {
  it.scoped("refuses a body over the limit, announced or streamed, and takes one exactly at it", () =>
    Effect.gen(function* () {
      const limit = 1000
      const server = yield* RecordingServer.start({
        "/announced": RecordingServer.answer(200, "x".repeat(limit + 1)),
        "/streamed": (_request, response) => {
          response.writeHead(200, { "transfer-encoding": "chunked" })
          response.write("x".repeat(600))
          response.end("x".repeat(600))
        },
        "/exact": RecordingServer.answer(200, "x".repeat(limit))
      })
      const options = { maxBytes: limit, allowedPrivateAddresses: Allowed.localhost }
      for (const path of ["/announced", "/streamed"]) {
        const error = yield* Effect.flip(GuardedFetch.request({ url: `${server.origin}${path}` }, options))
        expect(error._tag, path).toBe("AnswerTooLarge")
        expect(error.message).toBe(`the answer from 127.0.0.1 exceeds ${limit} bytes`)
      }
      const exact = yield* GuardedFetch.request({ url: `${server.origin}/exact` }, options)
      expect(exact.body.byteLength).toBe(limit)
      // A HEAD announces the length of a body it does not carry.
      const head = yield* GuardedFetch.request({ url: `${server.origin}/announced`, method: "HEAD" }, options)
      expect(head.status).toBe(200)
      expect(head.body.byteLength).toBe(0)
    })
  )

  it.scoped("gives up on a server that does not answer, or stops mid-body, within the time limit", () =>
    Effect.gen(function* () {
      const server = yield* RecordingServer.start({
        "/hang": RecordingServer.hang,
        "/half": (_request, response) => {
          response.writeHead(200, { "content-length": "100" })
          response.write("only half")
        }
      })
      const timeout = Duration.millis(200)
      for (const path of ["/hang", "/half"]) {
        const error = yield* Effect.flip(
          GuardedFetch.request(
            { url: `${server.origin}${path}` },
            { timeout, allowedPrivateAddresses: Allowed.localhost }
          )
        )
        // The configured limit gave up, not the 10 s default: a call that never gave up would
        // hang until the test's own time limit fails it.
        expect(error._tag).toBe("OutboundTimedOut")
        expect(error.message).toBe("127.0.0.1 gave no complete answer within 200ms")
      }
    })
  )

  it.scoped("never puts the URL's path or query in a failure", () =>
    Effect.gen(function* () {
      const server = yield* RecordingServer.start({
        "/Accounts/AC-secret/hang": RecordingServer.hang,
        "/Accounts/AC-secret/big": RecordingServer.answer(200, "x".repeat(100))
      })
      const options = {
        timeout: Duration.millis(200),
        maxBytes: 10,
        allowedPrivateAddresses: Allowed.localhost
      }
      const urls = [
        `${server.origin}/Accounts/AC-secret/hang?token=tok-secret`,
        `${server.origin}/Accounts/AC-secret/big?token=tok-secret`,
        "https://10.0.0.1/Accounts/AC-secret?token=tok-secret",
        "https://user:tok-secret@example.com/Accounts/AC-secret"
      ]
      for (const url of urls) {
        const error = yield* Effect.flip(GuardedFetch.request({ url }, options))
        for (const text of [error.message, JSON.stringify(error), String(error)]) {
          expect(text, url).not.toContain("AC-secret")
          expect(text, url).not.toContain("tok-secret")
        }
      }
    })
  )
})

describe("GuardedFetch: redirects", () => {
  it.scoped("follows a bounded number of redirects, and hands them back or refuses them when told", () =>
    Effect.gen(function* () {
      const server = yield* RecordingServer.start({
        "/r3": RecordingServer.redirect("/r2"),
        "/r2": RecordingServer.redirect("/r1", 301),
        "/r1": RecordingServer.redirect("/end", 307),
        "/end": RecordingServer.answer(200, "end"),
        "/nowhere": RecordingServer.redirect("http://[::1")
      })
      const options = { allowedPrivateAddresses: Allowed.localhost }
      const followed = yield* GuardedFetch.request(
        { url: `${server.origin}/r3` },
        { ...options, maxRedirects: 3 }
      )
      expect(GuardedFetch.text(followed)).toBe("end")
      expect(followed.url.href).toBe(`${server.origin}/end`)
      expect(followed.redirected).toBe(true)

      const tooMany = yield* Effect.flip(
        GuardedFetch.request({ url: `${server.origin}/r3` }, { ...options, maxRedirects: 2 })
      )
      expect(tooMany._tag).toBe("RedirectRefused")
      expect(tooMany.message).toBe("127.0.0.1 answered 307 after 2 redirects, the most followed")

      const manual = yield* GuardedFetch.request(
        { url: `${server.origin}/r3` },
        { ...options, redirect: "manual" }
      )
      expect(manual.status).toBe(302)
      expect(manual.headers.get("location")).toBe("/r2")
      expect(manual.redirected).toBe(false)

      const refusedRedirect = yield* Effect.flip(
        GuardedFetch.request({ url: `${server.origin}/r3` }, { ...options, redirect: "error" })
      )
      expect(refusedRedirect.message).toBe("127.0.0.1 answered 302: redirects are not followed")

      const nowhere = yield* Effect.flip(GuardedFetch.request({ url: `${server.origin}/nowhere` }, options))
      expect(nowhere.message).toBe("127.0.0.1 answered 302 with a location that is not a URL")
      expect(server.requests().filter((request) => request.path === "/end")).toHaveLength(1)
    })
  )

  it.scoped("changes the request as fetch does: 303 and a POST's 302 become GETs, 307 keeps the body", () =>
    Effect.gen(function* () {
      const server = yield* RecordingServer.start({
        "/see-other": RecordingServer.redirect("/end", 303),
        "/found": RecordingServer.redirect("/end", 302),
        "/temporary": RecordingServer.redirect("/end", 307),
        "/end": RecordingServer.answer(200, "end")
      })
      const post = (path: string) =>
        GuardedFetch.request(
          { url: `${server.origin}${path}`, method: "POST", body: new URLSearchParams({ a: "1" }) },
          { allowedPrivateAddresses: Allowed.localhost }
        )
      const ends = () => server.requests().filter((request) => request.path === "/end")
      yield* post("/see-other")
      yield* post("/found")
      yield* post("/temporary")
      expect(ends().map(({ method, body, headers }) => [method, body, headers["content-type"]])).toEqual([
        ["GET", "", undefined],
        ["GET", "", undefined],
        ["POST", "a=1", "application/x-www-form-urlencoded;charset=UTF-8"]
      ])
    })
  )

  it.scoped("keeps credentials on the same origin and drops them on another", () =>
    Effect.gen(function* () {
      const other = yield* RecordingServer.start({ "/end": RecordingServer.answer(200, "other") })
      const server = yield* RecordingServer.start({
        "/same": RecordingServer.redirect("/end"),
        "/cross": RecordingServer.redirect(`${other.origin}/end`),
        "/end": RecordingServer.answer(200, "same")
      })
      const headers = { authorization: "Bearer credential", cookie: "session=credential", "x-kept": "yes" }
      const options = { allowedPrivateAddresses: Allowed.localhost }
      yield* GuardedFetch.request({ url: `${server.origin}/same`, headers }, options)
      yield* GuardedFetch.request({ url: `${server.origin}/cross`, headers }, options)
      const sameEnd = server.requests().find((request) => request.path === "/end")
      expect(sameEnd?.headers.authorization).toBe("Bearer credential")
      const crossEnd = other.requests()[0]
      expect(crossEnd?.headers.authorization).toBeUndefined()
      expect(crossEnd?.headers.cookie).toBeUndefined()
      expect(crossEnd?.headers["x-kept"]).toBe("yes")
    })
  )
})

describe("GuardedFetch: answers", () => {
  it.scoped(
    "lets the caller drop an answer on its head, and refuses content codings it would not decode",
    () =>
      Effect.gen(function* () {
        const server = yield* RecordingServer.start({
          "/missing": RecordingServer.answer(404, "x".repeat(10_000)),
          "/gzip": RecordingServer.answer(200, "compressed", { "content-encoding": "gzip" })
        })
        const options = {
          maxBytes: 100,
          allowedPrivateAddresses: Allowed.localhost,
          screen: (head: { readonly status: number }) =>
            head.status === 200 ? Option.none() : Option.some(`answered ${head.status}`)
        }
        const missing = yield* Effect.flip(GuardedFetch.request({ url: `${server.origin}/missing` }, options))
        expect(missing._tag).toBe("AnswerRefused")
        expect(missing.message).toBe("answered 404")
        const gzip = yield* Effect.flip(GuardedFetch.request({ url: `${server.origin}/gzip` }, options))
        expect(gzip.message).toBe("127.0.0.1 answered with content-encoding gzip, which is not decoded")
        expect(server.requests().map((request) => request.headers["accept-encoding"])).toEqual([
          "identity",
          "identity"
        ])
      })
  )

  it.effect("reports what cannot be reached with Node's code", () =>
    Effect.gen(function* () {
      const closed = yield* Effect.scoped(RecordingServer.start({}))
      const error = yield* Effect.flip(
        GuardedFetch.request({ url: closed.origin }, { allowedPrivateAddresses: Allowed.localhost })
      )
      expect(error).toBeInstanceOf(DestinationUnreachable)
      expect(error instanceof DestinationUnreachable ? error.code : undefined).toBe("ECONNREFUSED")
    })
  )
})

describe("GuardedFetch.makeFetch", () => {
  it.scoped("answers as fetch does, through the guard", () =>
    Effect.gen(function* () {
      const server = yield* RecordingServer.start({
        "/json": RecordingServer.answer(200, '{"ok":true}', { "content-type": "application/json" }),
        "/form": (request, response) => {
          response.writeHead(201, { "content-type": "text/plain" })
          response.end(`${request.method} ${request.headers["content-type"]} ${request.body}`)
        },
        "/moved": RecordingServer.redirect("/json"),
        "/hang": RecordingServer.hang
      })
      const guarded = GuardedFetch.makeFetch({ allowedPrivateAddresses: Allowed.localhost })
      const json = yield* Effect.promise(() => guarded(`${server.origin}/json`))
      expect(json.status).toBe(200)
      expect(json.headers.get("content-type")).toBe("application/json")
      expect(yield* Effect.promise(() => json.json())).toEqual({ ok: true })

      const form = yield* Effect.promise(() =>
        guarded(new URL(`${server.origin}/form`), { method: "POST", body: new URLSearchParams({ a: "b" }) })
      )
      expect(form.status).toBe(201)
      expect(yield* Effect.promise(() => form.text())).toBe(
        "POST application/x-www-form-urlencoded;charset=UTF-8 a=b"
      )

      const followed = yield* Effect.promise(() => guarded(`${server.origin}/moved`))
      expect(followed.url).toBe(`${server.origin}/json`)
      expect(followed.redirected).toBe(true)
      const manual = yield* Effect.promise(() => guarded(`${server.origin}/moved`, { redirect: "manual" }))
      expect(manual.status).toBe(302)

      const refusal = yield* Effect.promise(() =>
        guarded("https://169.254.169.254/latest/meta-data/").then(
          () => undefined,
          (error: unknown) => error
        )
      )
      expect(refusal).toBeInstanceOf(DestinationRefused)

      const controller = new AbortController()
      const aborted = guarded(`${server.origin}/hang`, { signal: controller.signal }).then(
        () => undefined,
        (error: unknown) => error
      )
      controller.abort(new Error("stop"))
      expect(yield* Effect.promise(() => aborted)).toEqual(new Error("stop"))
    })
  )

  it.scoped("plugs into openid-client as its customFetch", () =>
    Effect.gen(function* () {
      const server = yield* DocumentServer.start({
        "/.well-known/openid-configuration": DocumentServer.json((origin) => ({
          issuer: origin,
          authorization_endpoint: `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          jwks_uri: `${origin}/jwks`
        }))
      })
      // The type openid-client asks for: the guard's fetch is one without a cast.
      const customFetch: client.CustomFetch = GuardedFetch.makeFetch({
        allowedPrivateAddresses: Allowed.localhost,
        ca: [server.cert]
      })
      const config = yield* Effect.promise(() =>
        client.discovery(new URL(server.origin), "client", undefined, undefined, {
          [client.customFetch]: customFetch
        })
      )
      expect(config.serverMetadata().token_endpoint).toBe(`${server.origin}/token`)
      expect(server.hits("/.well-known/openid-configuration")).toBe(1)

      const refusal = yield* Effect.promise(() =>
        client
          .discovery(new URL("https://169.254.169.254/"), "client", undefined, undefined, {
            [client.customFetch]: customFetch
          })
          .then(
            () => undefined,
            (error: unknown) => error
          )
      )
      expect(refusal).toBeInstanceOf(client.ClientError)
      expect(refusal instanceof Error ? refusal.cause : undefined).toBeInstanceOf(DestinationRefused)
    })
  )
})
