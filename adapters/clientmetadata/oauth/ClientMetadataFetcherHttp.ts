import { type LookupAddress, lookup } from "node:dns"
import { request } from "node:https"
import type { LookupFunction } from "node:net"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import ipaddr from "ipaddr.js"
import {
  ClientMetadataFetcher,
  ClientMetadataUnavailable
} from "../../../application/oauth/ports/ClientMetadataFetcher.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as ClientMetadataDocument from "../../../domain/oauth/ClientMetadataDocument.js"
import * as DocumentCache from "./DocumentCache.js"

/**
 * Fetches Client ID Metadata Documents over https. Any client can make us fetch any URL (it
 * only has to send it as `client_id`), so this is a server-side request forgery surface: the
 * host is resolved first, every address it resolves to must be public unicast, and the
 * connection goes to the very address that was checked, so a DNS answer that changes between
 * the check and the connect (rebinding) cannot point us at an internal service. Redirects are
 * not followed (their target would escape the check), bodies are capped and slow servers cut off.
 */

/** The draft suggests a small limit; 64 KiB is far above any real document. */
export const maxBodyBytes = 64 * 1024
const defaultTimeout = Duration.seconds(5)
/** For a document served without caching headers. */
const defaultTimeToLive = Duration.minutes(5)
/** Even a document that asks for longer is fetched again daily, so edits reach us. */
const maxTimeToLive = Duration.hours(24)

export interface Options {
  /**
   * Tests only: `host:port` pairs (as in the URL, `127.0.0.1:8443`, `[::1]:8443`) whose host may
   * resolve to a loopback address. Nothing else is exempt from the address check, and
   * production (`OAuthServer.serve` without options) never sets it.
   */
  readonly allowedLoopback?: ReadonlyArray<string>
  /**
   * Tests only: the PEM certificates to trust instead of Node's root store, for a server with
   * a throw-away certificate. TLS verification itself is never turned off.
   */
  readonly ca?: ReadonlyArray<string>
  /** The limit on one fetch, resolution included; 5 seconds unless a test wants less. */
  readonly timeout?: Duration.DurationInput
}

/** Well-known cloud instance metadata endpoints, refused by name even if ranges change. */
const cloudMetadata: ReadonlySet<string> = new Set(
  ["169.254.169.254", "fd00:ec2::254", "100.100.100.200"].map((address) => ipaddr.process(address).toString())
)

/**
 * The special-purpose range an address falls in, by ipaddr.js's tables (`loopback`,
 * `private`, `linkLocal`, `carrierGradeNat`, `uniqueLocal`, `multicast`, …), `unicast` for an
 * ordinary public address, `invalid` for anything unparsable. IPv4-mapped IPv6 addresses
 * (`::ffff:10.0.0.1`) are judged as the IPv4 address they carry.
 */
const rangeOf = (address: string): string => {
  if (!ipaddr.isValid(address)) return "invalid"
  const parsed = ipaddr.process(address)
  return cloudMetadata.has(parsed.toString()) ? "cloudMetadata" : parsed.range()
}

/**
 * Only ordinary public unicast addresses: an allow-list, so that loopback, RFC 1918, unique
 * local, link-local, CGNAT, unspecified, multicast, broadcast, documentation, reserved and
 * IPv4-embedding IPv6 ranges (NAT64, 6to4, Teredo) are all refused.
 */
export const isPublicAddress = (address: string): boolean => rangeOf(address) === "unicast"

/**
 * How long a document may be served from the cache (RFC 9111 §5.2.2): `no-store` and
 * `no-cache` (we cannot revalidate) mean not at all, `max-age` is honoured up to a day, and a
 * response without either is kept for five minutes. A malformed `max-age` counts as stale.
 */
export const timeToLive = (cacheControl: string | undefined): Duration.Duration => {
  if (cacheControl === undefined) return defaultTimeToLive
  const directives = cacheControl
    .toLowerCase()
    .split(",")
    .map((directive) => directive.trim())
  if (directives.some((directive) => directive === "no-store" || directive === "no-cache")) {
    return Duration.zero
  }
  const maxAge = directives.find((directive) => directive.startsWith("max-age"))
  if (maxAge === undefined) return defaultTimeToLive
  const seconds = /^max-age\s*=\s*"?(\d+)"?$/.exec(maxAge)?.[1]
  return seconds === undefined
    ? Duration.zero
    : Duration.min(Duration.seconds(Number(seconds)), maxTimeToLive)
}

/** `application/json` or a more specific `application/<something>+json`, as the draft allows. */
const isJson = (contentType: string | undefined): boolean => {
  const mediaType = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? ""
  return mediaType === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(mediaType)
}

const unavailable = (url: URL, reason: string) => new ClientMetadataUnavailable({ url: url.href, reason })

/** The host as DNS and `https.request` want it: IPv6 literals without their brackets. */
const bareHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1")

/** `host:port` as the allow-list writes it, with the default port made explicit. */
const hostPort = (url: URL): string => `${url.hostname}:${url.port === "" ? "443" : url.port}`

const resolve = (url: URL) =>
  Effect.async<ReadonlyArray<LookupAddress>, ClientMetadataUnavailable>((resume) => {
    lookup(bareHost(url), { all: true, verbatim: true }, (error, addresses) => {
      resume(
        error === null
          ? Effect.succeed(addresses)
          : Effect.fail(unavailable(url, `cannot resolve ${url.hostname}: ${error.code ?? error.message}`))
      )
    })
  })

/** Resolves the host and returns the address to connect to, refusing any non-public one. */
const vet = (url: URL, allowedLoopback: ReadonlySet<string>) =>
  Effect.gen(function* () {
    const addresses = yield* resolve(url)
    const exempt = allowedLoopback.has(hostPort(url))
    // Every address must pass, not just the one we pick: a name with one public and one
    // private address is refused outright rather than trusted to the order of the answers.
    for (const { address } of addresses) {
      const range = rangeOf(address)
      if (range !== "unicast" && !(exempt && range === "loopback")) {
        return yield* unavailable(url, `${url.hostname} resolves to a ${range} address, which is not fetched`)
      }
    }
    const first = addresses[0]
    if (first === undefined) return yield* unavailable(url, `${url.hostname} has no address`)
    return first
  })

/**
 * Hands the connection the vetted address whatever name it asks for. Node asks for a list
 * (`all`) when it races address families (autoSelectFamily), for one address otherwise.
 */
const pinnedLookup =
  (vetted: LookupAddress): LookupFunction =>
  (_hostname, options, callback) => {
    if (options.all === true) callback(null, [vetted])
    else callback(null, vetted.address, vetted.family)
  }

interface Downloaded {
  readonly body: string
  readonly cacheControl: string | undefined
}

/** One GET to the pinned address; TLS still verifies the certificate against the URL's host. */
const download = (url: URL, vetted: LookupAddress, ca: ReadonlyArray<string> | undefined) =>
  Effect.async<Downloaded, ClientMetadataUnavailable>((resume) => {
    let settled = false
    const settle = (outcome: Effect.Effect<Downloaded, ClientMetadataUnavailable>) => {
      if (settled) return
      settled = true
      resume(outcome)
    }
    const fail = (reason: string) => settle(Effect.fail(unavailable(url, reason)))
    const outgoing = request(
      {
        protocol: "https:",
        hostname: bareHost(url),
        port: url.port === "" ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: { accept: "application/json" },
        lookup: pinnedLookup(vetted),
        // A fresh connection each time: a pooled one might have been opened to another address.
        agent: false,
        ...(ca === undefined ? {} : { ca: [...ca] })
      },
      (response) => {
        const status = response.statusCode ?? 0
        const refuse = (reason: string) => {
          outgoing.destroy()
          fail(reason)
        }
        if (status >= 300 && status < 400) return refuse(`answered ${status}: redirects are not followed`)
        if (status !== 200) return refuse(`answered ${status}`)
        if (!isJson(response.headers["content-type"])) {
          return refuse(`content-type ${response.headers["content-type"] ?? "(none)"} is not JSON`)
        }
        const declared = Number(response.headers["content-length"])
        if (Number.isFinite(declared) && declared > maxBodyBytes) {
          return refuse(`the document exceeds ${maxBodyBytes} bytes`)
        }
        const chunks: Array<Buffer> = []
        let size = 0
        response.on("data", (chunk: Buffer) => {
          size += chunk.length
          if (size > maxBodyBytes) refuse(`the document exceeds ${maxBodyBytes} bytes`)
          else chunks.push(chunk)
        })
        response.on("end", () =>
          settle(
            Effect.succeed({
              body: Buffer.concat(chunks).toString("utf8"),
              cacheControl: response.headers["cache-control"]
            })
          )
        )
        response.on("error", (error) => fail(error.message))
        // After "end" this is a no-op; before it, the server hung up mid-body.
        response.on("close", () => fail("the connection closed before the document ended"))
      }
    )
    outgoing.on("error", (error) => fail(error.message))
    outgoing.end()
    // On timeout or interruption: drop the connection.
    return Effect.sync(() => outgoing.destroy())
  })

const parseJson = (url: URL, body: string) =>
  Either.try({
    try: (): unknown => JSON.parse(body),
    catch: () => unavailable(url, "the document is not valid JSON")
  })

/** The fetcher with its own cache; `options` are for tests (see `Options`). */
export const make = (options: Options = {}) =>
  Effect.sync(() => {
    const allowedLoopback: ReadonlySet<string> = new Set(options.allowedLoopback ?? [])
    const timeout = Duration.decode(options.timeout ?? defaultTimeout)
    const cache = DocumentCache.make()

    const fetchOnce = (url: URL) =>
      Effect.gen(function* () {
        const vetted = yield* vet(url, allowedLoopback)
        const downloaded = yield* download(url, vetted, options.ca)
        const json = yield* parseJson(url, downloaded.body)
        const document = yield* ClientMetadataDocument.parse(url, json).pipe(
          Effect.mapError((invalid) => unavailable(url, invalid.message))
        )
        return {
          document,
          bytes: Buffer.byteLength(downloaded.body),
          timeToLive: timeToLive(downloaded.cacheControl)
        }
      }).pipe(
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () => unavailable(url, `no complete answer within ${Duration.format(timeout)}`)
        })
      )

    return ClientMetadataFetcher.of({
      fetch: Telemetry.fn("ClientMetadataFetcherHttp.fetch")((url: URL) =>
        Effect.gen(function* () {
          yield* Telemetry.annotate("client.id", url.href)
          if (url.protocol !== "https:") return yield* unavailable(url, "only https URLs are fetched")
          if (url.username !== "" || url.password !== "") {
            return yield* unavailable(url, "the URL must not carry user information")
          }
          const cached = cache.get(url.href, yield* Clock.currentTimeMillis)
          if (Option.isSome(cached)) return cached.value
          const fetched = yield* fetchOnce(url)
          if (Duration.greaterThan(fetched.timeToLive, Duration.zero)) {
            const now = yield* Clock.currentTimeMillis
            cache.set(url.href, fetched.document, fetched.bytes, now + Duration.toMillis(fetched.timeToLive))
          }
          return fetched.document
        })
      )
    })
  })

export const layer = (options: Options = {}) => Layer.effect(ClientMetadataFetcher, make(options))
