import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import {
  ClientMetadataFetcher,
  ClientMetadataUnavailable
} from "../../../application/oauth/ports/ClientMetadataFetcher.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as ClientMetadataDocument from "../../../domain/oauth/ClientMetadataDocument.js"
import * as AddressRange from "../../outbound/AddressRange.js"
import type * as Exchange from "../../outbound/Exchange.js"
import * as GuardedFetch from "../../outbound/GuardedFetch.js"
import type { OutboundFailure } from "../../outbound/OutboundFailure.js"
import type * as PrivateAddresses from "../../outbound/PrivateAddresses.js"
import * as DocumentCache from "./DocumentCache.js"

/**
 * Fetches Client ID Metadata Documents over https. Any client can make us fetch any URL (it
 * only has to send it as `client_id`), so this is a server-side request forgery surface, and
 * every fetch goes through the outbound guard (`GuardedFetch`): the host is resolved first,
 * every address it resolves to must be public unicast (or one of the private addresses the
 * operator lists for all of the service's outbound calls), and the connection goes to the very
 * address that was checked, so a DNS answer that changes between the check and the connect
 * (rebinding) cannot point us at an internal service. Redirects are not followed (the draft
 * wants the document at its own URL), bodies are capped and slow servers cut off.
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
   * The private addresses the operator allows (`OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`), which
   * every outbound call of the service may reach, documents included; none by default.
   */
  readonly allowedPrivateAddresses?: PrivateAddresses.AllowList
  /**
   * Tests only: the PEM certificates to trust instead of Node's root store, for a server with
   * a throw-away certificate. TLS verification itself is never turned off.
   */
  readonly ca?: ReadonlyArray<string>
  /** The limit on one fetch, resolution included; 5 seconds unless a test wants less. */
  readonly timeout?: Duration.DurationInput
}

/**
 * Only ordinary public unicast addresses are fetched from (the guard's `AddressRange`), besides
 * those the operator lists (`Options.allowedPrivateAddresses`): loopback, RFC 1918, unique local, link-local, CGNAT, unspecified, multicast, broadcast,
 * documentation, reserved and cloud metadata addresses are all refused, and IPv6 forms that
 * embed an IPv4 address are judged by it (mapped, NAT64) or refused (6to4, Teredo, …).
 */
export const isPublicAddress = AddressRange.isPublic

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

const unavailable = (url: URL, reason: string, answer: ClientMetadataUnavailable["answer"] = "refused") =>
  new ClientMetadataUnavailable({ url: url.href, reason, answer })

/**
 * What the failure says: the publisher is down (unreachable, no answer in time, or a status
 * that means "not now": 5xx, 429), says the document is gone (404, 410), or answered something
 * else that is no document (a redirect, another status, too large).
 */
const answerOf = (failure: OutboundFailure): ClientMetadataUnavailable["answer"] => {
  switch (failure._tag) {
    case "DestinationUnreachable":
    case "OutboundTimedOut":
      return "down"
    case "AnswerRefused":
      if (failure.status >= 500 || failure.status === 429) return "down"
      return failure.status === 404 || failure.status === 410 ? "gone" : "refused"
    default:
      return "refused"
  }
}

/**
 * Refuses, before the body is read, an answer that cannot be a document: a redirect (not
 * followed), another status than 200, or a content type other than JSON.
 */
const screen = (head: Exchange.Head): Option.Option<string> => {
  const contentType = head.headers.get("content-type")
  if (head.status >= 300 && head.status < 400) {
    return Option.some(`answered ${head.status}: redirects are not followed`)
  }
  if (head.status !== 200) return Option.some(`answered ${head.status}`)
  if (!isJson(contentType ?? undefined))
    return Option.some(`content-type ${contentType ?? "(none)"} is not JSON`)
  return Option.none()
}

/** The guard's failure in this fetcher's words; like the guard's own, they name the host at most. */
const reasonOf = (failure: OutboundFailure, timeout: Duration.Duration): string => {
  switch (failure._tag) {
    case "OutboundTimedOut":
      return `no complete answer within ${Duration.format(timeout)}`
    case "AnswerTooLarge":
      return `the document exceeds ${maxBodyBytes} bytes`
    default:
      return failure.message
  }
}

/** One GET of the document through the guard. */
const download = (url: URL, options: Options, timeout: Duration.Duration) =>
  GuardedFetch.request(
    { url, headers: { accept: "application/json" } },
    {
      timeout,
      maxBytes: maxBodyBytes,
      redirect: "manual",
      screen,
      ...(options.allowedPrivateAddresses === undefined
        ? {}
        : { allowedPrivateAddresses: options.allowedPrivateAddresses }),
      ...(options.ca === undefined ? {} : { ca: options.ca })
    }
  ).pipe(
    Effect.map((response) => ({
      body: GuardedFetch.text(response),
      cacheControl: response.headers.get("cache-control") ?? undefined
    })),
    Effect.mapError((failure) => unavailable(url, reasonOf(failure, timeout), answerOf(failure)))
  )

const parseJson = (url: URL, body: string) =>
  Either.try({
    try: (): unknown => JSON.parse(body),
    catch: () => unavailable(url, "the document is not valid JSON")
  })

/** The fetcher with its own cache; `options` are for tests (see `Options`). */
export const make = (options: Options = {}) =>
  Effect.sync(() => {
    const timeout = Duration.decode(options.timeout ?? defaultTimeout)
    const cache = DocumentCache.make()

    const fetchOnce = (url: URL) =>
      Effect.gen(function* () {
        // The guard's time limit covers resolution, connection and body; parsing is immediate.
        const downloaded = yield* download(url, options, timeout)
        const json = yield* parseJson(url, downloaded.body)
        const document = yield* ClientMetadataDocument.parse(url, json).pipe(
          Effect.mapError((invalid) => unavailable(url, invalid.message))
        )
        return {
          document,
          bytes: Buffer.byteLength(downloaded.body),
          timeToLive: timeToLive(downloaded.cacheControl)
        }
      })

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
