import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as client from "openid-client"
import * as Destination from "../../../adapters/outbound/Destination.js"
import * as GuardedFetch from "../../../adapters/outbound/GuardedFetch.js"
import { DestinationRefused, DestinationUnreachable } from "../../../adapters/outbound/OutboundFailure.js"
import * as DocumentServer from "../../support/oauth/DocumentServer.js"
import { allowed, refused } from "../../support/outbound/Addresses.js"
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
          allowedLoopback: new Set(),
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
            { resolve: dns.resolve, allowedLoopback: [`mixed.test:${server.port}`] }
          )
        )
        expect(error.message).toContain("mixed.test resolves to a private address")
        expect(server.connections()).toBe(0)
      })
  )

  it.scoped("refuses loopback unless the test allow-list names that very host and port", () =>
    Effect.gen(function* () {
      const server = yield* RecordingServer.start({ "/": RecordingServer.answer(200, "reached") })
      const dns = resolverOf((name) => (name === "localhost" ? ["127.0.0.1", "::1"] : undefined))
      const attempts: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
        [server.origin, []],
        [`https://127.0.0.1:${server.port}/`, []],
        [`http://localhost:${server.port}/`, []],
        [server.origin, [`127.0.0.1:${server.port + 1}`]],
        [server.origin, [`localhost:${server.port}`]],
        [`http://localhost:${server.port}/`, [`127.0.0.1:${server.port}`]]
      ]
      for (const [url, allowedLoopback] of attempts) {
        const error = yield* Effect.flip(
          GuardedFetch.request({ url }, { resolve: dns.resolve, allowedLoopback })
        )
        expect(error._tag, url).toBe("DestinationRefused")
      }
      expect(server.connections()).toBe(0)
      // Named, it is reached.
      const reached = yield* GuardedFetch.request(
        { url: server.origin },
        { allowedLoopback: [server.hostPort] }
      )
      expect(GuardedFetch.text(reached)).toBe("reached")
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
      // The one server the test allows redirects to each target in turn; the internal server
      // is a loopback service the allow-list does not name, reachable only by those redirects.
      const internal = yield* RecordingServer.start({ "/": RecordingServer.answer(200, "internal") })
      const entry = yield* RecordingServer.start({ "/to": RecordingServer.redirectToQuery })
      const dns = resolverOf((name) =>
        name === "internal.test" || name === "localhost" ? ["127.0.0.1"] : namesTable.get(name)
      )
      const targets = [
        ...literalClasses.map(([, address]) => literalUrl(address, "/latest/meta-data/")),
        ...namedClasses.map(({ name }) => `https://${name}/`),
        `https://127.0.0.1:${internal.port}/`,
        `http://127.0.0.1:${internal.port}/`,
        `http://localhost:${internal.port}/`,
        `https://internal.test:${internal.port}/`,
        `http://[::ffff:127.0.0.1]:${internal.port}/`,
        "http://2130706433/",
        "https://metadata.google.internal/computeMetadata/v1/",
        "http://public.test/"
      ]
      for (const target of targets) {
        const error = yield* Effect.flip(
          GuardedFetch.request(
            { url: `${entry.origin}/to?to=${encodeURIComponent(target)}` },
            { resolve: dns.resolve, allowedLoopback: [entry.hostPort] }
          )
        )
        expect(error._tag, target).toBe("DestinationRefused")
      }
      expect(entry.requests()).toHaveLength(targets.length)
      expect(internal.connections()).toBe(0)
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
      const options = { resolve: dns.resolve, allowedLoopback: [`pinned.test:${first.port}`] }
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
        allowedLoopback: [`localhost:${port}`, `elsewhere.test:${port}`]
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
      const options = { maxBytes: limit, allowedLoopback: [server.hostPort] }
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
            { timeout, allowedLoopback: [server.hostPort] }
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
      const closed = yield* RecordingServer.start({})
      const closedPort = closed.port
      const options = {
        timeout: Duration.millis(200),
        maxBytes: 10,
        allowedLoopback: [server.hostPort, `127.0.0.1:${closedPort}`]
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
      const options = { allowedLoopback: [server.hostPort] }
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
          { allowedLoopback: [server.hostPort] }
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
      const options = { allowedLoopback: [server.hostPort, other.hostPort] }
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
          allowedLoopback: [server.hostPort],
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
        GuardedFetch.request({ url: closed.origin }, { allowedLoopback: [closed.hostPort] })
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
      const guarded = GuardedFetch.makeFetch({ allowedLoopback: [server.hostPort] })
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
        allowedLoopback: [server.hostPort],
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
