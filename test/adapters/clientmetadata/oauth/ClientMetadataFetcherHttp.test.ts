import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as TestClock from "effect/TestClock"
import * as ClientMetadataFetcherHttp from "../../../../adapters/clientmetadata/oauth/ClientMetadataFetcherHttp.js"
import { freePort } from "../../../support/FreePort.js"
import * as DocumentServer from "../../../support/oauth/DocumentServer.js"
import * as Allowed from "../../../support/outbound/Allowed.js"

const documentFor =
  (path: string, fields: Record<string, unknown> = {}) =>
  (origin: string) => ({
    client_id: `${origin}${path}`,
    client_name: "Test MCP client",
    redirect_uris: ["http://127.0.0.1/callback"],
    token_endpoint_auth_method: "none",
    ...fields
  })

/** A fetcher that may reach this test's server (its address allowed, its certificate trusted). */
const fetcherFor = (server: DocumentServer.DocumentServer, options: ClientMetadataFetcherHttp.Options = {}) =>
  ClientMetadataFetcherHttp.make({
    allowedPrivateAddresses: Allowed.localhost,
    ca: [server.cert],
    ...options
  })

/** The reason a fetch failed, or a test failure if it succeeded. */
const reasonOf = <A>(effect: Effect.Effect<A, { readonly reason: string }>) =>
  Effect.flatMap(Effect.either(effect), (result) =>
    Either.isLeft(result) ? Effect.succeed(result.left.reason) : Effect.dieMessage("the fetch succeeded")
  )

describe("ClientMetadataFetcherHttp", () => {
  it.live("fetches a valid document", () =>
    Effect.gen(function* () {
      const server = yield* DocumentServer.start({
        "/client.json": DocumentServer.json(documentFor("/client.json"))
      })
      const fetcher = yield* fetcherFor(server)
      const document = yield* fetcher.fetch(new URL(`${server.origin}/client.json`))
      expect(document.client_id).toBe(`${server.origin}/client.json`)
      expect(document.client_name).toBe("Test MCP client")
      expect(document.redirect_uris).toEqual(["http://127.0.0.1/callback"])
    }).pipe(Effect.scoped)
  )

  it.live("refuses a document whose client_id is not its URL", () =>
    Effect.gen(function* () {
      const server = yield* DocumentServer.start({
        "/client.json": DocumentServer.json(documentFor("/other.json"))
      })
      const fetcher = yield* fetcherFor(server)
      const reason = yield* reasonOf(fetcher.fetch(new URL(`${server.origin}/client.json`)))
      expect(reason).toContain("client_id does not match")
    }).pipe(Effect.scoped)
  )

  it.live("refuses a confidential client, invalid redirect URIs and non-JSON answers", () =>
    Effect.gen(function* () {
      const server = yield* DocumentServer.start({
        "/secret": DocumentServer.json(
          documentFor("/secret", { token_endpoint_auth_method: "client_secret_basic" })
        ),
        "/plain-http": DocumentServer.json(
          documentFor("/plain-http", { redirect_uris: ["http://example.com/cb"] })
        ),
        "/html": (_request, response) => {
          response.writeHead(200, { "content-type": "text/html" })
          response.end("<html></html>")
        },
        "/garbage": (_request, response) => {
          response.writeHead(200, { "content-type": "application/json" })
          response.end("{ not json")
        }
      })
      const fetcher = yield* fetcherFor(server)
      const reason = (path: string) => reasonOf(fetcher.fetch(new URL(`${server.origin}${path}`)))
      expect(yield* reason("/secret")).toContain("token_endpoint_auth_method must be none")
      expect(yield* reason("/plain-http")).toContain("must use https")
      expect(yield* reason("/html")).toContain("is not JSON")
      expect(yield* reason("/garbage")).toContain("not valid JSON")
    }).pipe(Effect.scoped)
  )

  it.live("refuses a URL that is not https, without connecting", () =>
    Effect.gen(function* () {
      const server = yield* DocumentServer.start({})
      const fetcher = yield* fetcherFor(server)
      const reason = yield* reasonOf(fetcher.fetch(new URL(`http://${server.hostPort}/client.json`)))
      expect(reason).toContain("only https")
      expect(server.connections()).toBe(0)
    }).pipe(Effect.scoped)
  )

  it.live("refuses loopback that the operator's list does not name, before any connection", () =>
    Effect.gen(function* () {
      const server = yield* DocumentServer.start({
        "/client.json": DocumentServer.json(documentFor("/client.json"))
      })
      const fetcher = yield* ClientMetadataFetcherHttp.make({ ca: [server.cert] })
      const byAddress = yield* reasonOf(fetcher.fetch(new URL(`${server.origin}/client.json`)))
      expect(byAddress).toContain("loopback")
      const port = new URL(server.origin).port
      const byName = yield* reasonOf(fetcher.fetch(new URL(`https://localhost:${port}/client.json`)))
      expect(byName).toContain("loopback")
      // The list names addresses: another loopback address than the server's leaves it refused.
      const otherAddress = yield* ClientMetadataFetcherHttp.make({
        allowedPrivateAddresses: Allowed.allowing("127.0.0.2"),
        ca: [server.cert]
      })
      expect(yield* reasonOf(otherAddress.fetch(new URL(`${server.origin}/client.json`)))).toContain(
        "loopback"
      )
      expect(server.connections()).toBe(0)
      expect(server.hits("/client.json")).toBe(0)
    }).pipe(Effect.scoped)
  )

  it.live("refuses private, link-local, CGNAT and cloud metadata addresses; metadata even when listed", () =>
    Effect.gen(function* () {
      const targets = [
        "https://10.0.0.1/client.json",
        "https://172.16.5.4/client.json",
        "https://192.168.1.1/client.json",
        "https://169.254.169.254/latest/meta-data",
        "https://100.64.0.1/client.json",
        "https://0.0.0.0/client.json",
        "https://[fd00:ec2::254]/client.json",
        "https://[fe80::1]/client.json",
        "https://[::ffff:10.0.0.1]/client.json",
        "https://[ff02::1]/client.json"
      ]
      const fetcher = yield* ClientMetadataFetcherHttp.make()
      for (const target of targets) {
        const reason = yield* reasonOf(fetcher.fetch(new URL(target)))
        expect(reason, target).toMatch(/resolves to a \w+ address/)
      }
      // A list whose ranges hold the metadata services does not open them.
      const listing = yield* ClientMetadataFetcherHttp.make({
        allowedPrivateAddresses: Allowed.allowing("169.254.0.0/16", "fd00::/8")
      })
      for (const target of [
        "https://169.254.169.254/latest/meta-data",
        "https://[fd00:ec2::254]/client.json"
      ]) {
        const reason = yield* reasonOf(listing.fetch(new URL(target)))
        expect(reason, target).toMatch(/resolves to a cloudMetadata address, which is not contacted$/)
      }
    })
  )

  it.live("refuses a body over 64 KiB, announced or streamed", () =>
    Effect.gen(function* () {
      const padding = "x".repeat(ClientMetadataFetcherHttp.maxBodyBytes)
      const server = yield* DocumentServer.start({
        "/announced": DocumentServer.json(documentFor("/announced", { padding })),
        "/streamed": (_request, response, origin) => {
          response.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" })
          const body = JSON.stringify(documentFor("/streamed", { padding })(origin))
          response.write(body.slice(0, 1000))
          response.end(body.slice(1000))
        }
      })
      const fetcher = yield* fetcherFor(server)
      expect(yield* reasonOf(fetcher.fetch(new URL(`${server.origin}/announced`)))).toContain(
        "exceeds 65536 bytes"
      )
      expect(yield* reasonOf(fetcher.fetch(new URL(`${server.origin}/streamed`)))).toContain(
        "exceeds 65536 bytes"
      )
    }).pipe(Effect.scoped)
  )

  it.live("gives up on a server that does not answer in time", () =>
    Effect.gen(function* () {
      const server = yield* DocumentServer.start({
        "/slow": () => {
          // Never answers.
        }
      })
      const timeout = Duration.millis(300)
      const fetcher = yield* fetcherFor(server, { timeout })
      const reason = yield* reasonOf(fetcher.fetch(new URL(`${server.origin}/slow`)))
      // The configured limit gave up, not the 5 s default; that it did so in time is not
      // measured on the wall clock, whose readings depend on the machine's load: a fetch that
      // never gave up would hang until the test's own time limit fails it.
      expect(reason).toContain(`no complete answer within ${Duration.format(timeout)}`)
    }).pipe(Effect.scoped)
  )

  it.live("tells a publisher that is down from one that says the document is gone, or answers no", () =>
    Effect.gen(function* () {
      const status =
        (code: number): DocumentServer.Handler =>
        (_request, response) => {
          response.writeHead(code, { "content-type": "application/json" }).end("{}")
        }
      const server = yield* DocumentServer.start({
        "/down": status(503),
        "/failing": status(500),
        "/busy": status(429),
        "/gone": status(404),
        "/removed": status(410),
        "/forbidden": status(403),
        "/moved": status(302),
        "/slow": () => {
          // Never answers.
        },
        "/invalid": DocumentServer.json(documentFor("/elsewhere"))
      })
      const fetcher = yield* fetcherFor(server, { timeout: Duration.millis(300) })
      const answer = (url: string) =>
        Effect.flatMap(Effect.flip(fetcher.fetch(new URL(url))), (failure) => Effect.succeed(failure.answer))
      for (const path of ["/down", "/failing", "/busy", "/slow"]) {
        expect(yield* answer(`${server.origin}${path}`), path).toBe("down")
      }
      for (const path of ["/gone", "/removed"]) {
        expect(yield* answer(`${server.origin}${path}`), path).toBe("gone")
      }
      for (const path of ["/forbidden", "/moved", "/invalid"]) {
        expect(yield* answer(`${server.origin}${path}`), path).toBe("refused")
      }
      // Nobody listens there: unreachable.
      const closed = yield* freePort
      expect(yield* answer(`https://127.0.0.1:${closed}/client.json`)).toBe("down")
    }).pipe(Effect.scoped)
  )

  it.live("does not follow redirects", () =>
    Effect.gen(function* () {
      const server = yield* DocumentServer.start({
        "/moved": (_request, response, origin) => {
          response.writeHead(302, { location: `${origin}/client.json` })
          response.end()
        },
        "/client.json": DocumentServer.json(documentFor("/moved"))
      })
      const fetcher = yield* fetcherFor(server)
      expect(yield* reasonOf(fetcher.fetch(new URL(`${server.origin}/moved`)))).toContain(
        "redirects are not followed"
      )
      expect(server.hits("/client.json")).toBe(0)
    }).pipe(Effect.scoped)
  )

  it.live("does not disable TLS verification: an untrusted certificate is refused", () =>
    Effect.gen(function* () {
      const server = yield* DocumentServer.start({
        "/client.json": DocumentServer.json(documentFor("/client.json"))
      })
      const fetcher = yield* ClientMetadataFetcherHttp.make({ allowedPrivateAddresses: Allowed.localhost })
      expect(yield* reasonOf(fetcher.fetch(new URL(`${server.origin}/client.json`)))).toMatch(/certificate/i)
    }).pipe(Effect.scoped)
  )

  // On the test clock, which moves only when told to: whether a document is still fresh depends
  // on the instants below, not on how long the fetches take.
  it.effect(
    "serves a document from its cache until max-age has passed, and fetches no-store ones every time",
    () =>
      Effect.gen(function* () {
        const server = yield* DocumentServer.start({
          "/cached": DocumentServer.json(documentFor("/cached"), { "cache-control": "public, max-age=60" }),
          "/default": DocumentServer.json(documentFor("/default")),
          "/no-store": DocumentServer.json(documentFor("/no-store"), { "cache-control": "no-store" })
        })
        const fetcher = yield* fetcherFor(server)
        for (const path of ["/cached", "/default", "/no-store"]) {
          yield* fetcher.fetch(new URL(`${server.origin}${path}`))
          yield* fetcher.fetch(new URL(`${server.origin}${path}`))
        }
        expect(server.hits("/cached")).toBe(1)
        expect(server.hits("/default")).toBe(1)
        expect(server.hits("/no-store")).toBe(2)

        const fetchAgain = (path: string) => fetcher.fetch(new URL(`${server.origin}${path}`))
        yield* TestClock.adjust(Duration.subtract(Duration.seconds(60), Duration.millis(1)))
        yield* fetchAgain("/cached")
        expect(server.hits("/cached")).toBe(1)
        yield* TestClock.adjust(Duration.millis(1))
        yield* fetchAgain("/cached")
        yield* fetchAgain("/default")
        expect(server.hits("/cached")).toBe(2)
        expect(server.hits("/default")).toBe(1)
        // Without caching headers a document keeps for 5 minutes.
        yield* TestClock.adjust(Duration.subtract(Duration.minutes(4), Duration.millis(1)))
        yield* fetchAgain("/default")
        expect(server.hits("/default")).toBe(1)
        yield* TestClock.adjust(Duration.millis(1))
        yield* fetchAgain("/default")
        expect(server.hits("/default")).toBe(2)
      }).pipe(Effect.scoped)
  )
})

describe("ClientMetadataFetcherHttp.isPublicAddress", () => {
  it.each([
    ["93.184.215.14", true],
    ["2606:2800:21f:cb07:6820:80da:af6b:8b2c", true],
    ["127.0.0.1", false],
    ["127.255.0.1", false],
    ["::1", false],
    ["10.1.2.3", false],
    ["172.31.255.255", false],
    ["192.168.0.1", false],
    ["100.64.0.1", false],
    ["100.127.255.254", false],
    ["169.254.169.254", false],
    ["169.254.1.1", false],
    ["0.0.0.0", false],
    ["::", false],
    ["224.0.0.1", false],
    ["255.255.255.255", false],
    ["fc00::1", false],
    ["fd00:ec2::254", false],
    ["fe80::1", false],
    ["ff02::1", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:169.254.169.254", false],
    ["64:ff9b::a00:1", false],
    ["not an address", false]
  ] as const)("%s → %s", (address, expected) => {
    expect(ClientMetadataFetcherHttp.isPublicAddress(address)).toBe(expected)
  })
})

describe("ClientMetadataFetcherHttp.timeToLive", () => {
  it.each([
    [undefined, Duration.minutes(5)],
    ["max-age=60", Duration.seconds(60)],
    ["public, max-age=600, must-revalidate", Duration.seconds(600)],
    ["max-age=31536000", Duration.hours(24)],
    ["no-store", Duration.zero],
    ["max-age=60, no-cache", Duration.zero],
    ["max-age=soon", Duration.zero],
    ["public", Duration.minutes(5)]
  ] as const)("%s → %s", (header, expected) => {
    expect(Duration.toMillis(ClientMetadataFetcherHttp.timeToLive(header))).toBe(Duration.toMillis(expected))
  })
})
