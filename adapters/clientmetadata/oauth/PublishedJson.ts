import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Exchange from "../../outbound/Exchange.js"
import * as GuardedFetch from "../../outbound/GuardedFetch.js"
import type { OutboundFailure } from "../../outbound/OutboundFailure.js"
import type * as PrivateAddresses from "../../outbound/PrivateAddresses.js"

/**
 * A JSON resource a client publishes for us to fetch: its Client ID Metadata Document, the key
 * set its assertions are signed with. Any client can make us fetch any URL (it only has to name
 * it), so this is a server-side request forgery surface, and every fetch goes through the
 * outbound guard (`GuardedFetch`): the host is resolved first, every address it resolves to
 * must be public unicast (or one of the private addresses the operator lists for all of the
 * service's outbound calls), and the connection goes to the very address that was checked, so
 * a DNS answer that changes between the check and the connect (rebinding) cannot point us at
 * an internal service. Redirects are not followed (each resource belongs at its own URL),
 * bodies are capped and slow servers cut off.
 */

/** The metadata-document draft suggests a small limit; 64 KiB is far above any real document or key set. */
export const maxBodyBytes = 64 * 1024
export const defaultTimeout = Duration.seconds(5)
/** For a resource served without caching headers. */
const defaultTimeToLive = Duration.minutes(5)
/** Even a resource that asks for longer is fetched again daily, so edits reach us. */
const maxTimeToLive = Duration.hours(24)

export interface Options {
  /**
   * The private addresses the operator allows (`OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`), which
   * every outbound call of the service may reach, these included; none by default.
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
 * The resource could not be had. `answer` says what that means: `down`, its publisher could not
 * be reached or failed on its side (no answer in time, a 5xx, a 429) and may well answer again;
 * `gone`, the publisher says there is no such resource (404, 410); `refused`, anything else.
 * The reason names the host at most, and is safe to log.
 */
export class PublishedJsonUnavailable extends Schema.TaggedError<PublishedJsonUnavailable>()(
  "PublishedJsonUnavailable",
  { reason: Schema.String, answer: Schema.Literal("down", "gone", "refused") }
) {}

export interface Fetched {
  /** The parsed body. */
  readonly json: unknown
  /** Its size as downloaded, to weigh it in a cache. */
  readonly bytes: number
  /** How long it may be used without fetching it again. */
  readonly timeToLive: Duration.Duration
}

/**
 * How long a resource may be served from a cache (RFC 9111 §5.2.2): `no-store` and `no-cache`
 * (we cannot revalidate) mean not at all, `max-age` is honoured up to a day, and a response
 * without either is kept for five minutes. A malformed `max-age` counts as stale.
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

/** `application/json` or a more specific `application/<something>+json` (`jwk-set+json`, …). */
const isJson = (contentType: string | undefined): boolean => {
  const mediaType = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? ""
  return mediaType === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(mediaType)
}

const unavailable = (reason: string, answer: PublishedJsonUnavailable["answer"] = "refused") =>
  new PublishedJsonUnavailable({ reason, answer })

/** What the guard's failure says about the publisher (see `PublishedJsonUnavailable`). */
const answerOf = (failure: OutboundFailure): PublishedJsonUnavailable["answer"] => {
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
 * Refuses, before the body is read, an answer that cannot be the resource: a redirect (not
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

/** The guard's failure in this module's words; like the guard's own, they name the host at most. */
const reasonOf = (failure: OutboundFailure, timeout: Duration.Duration, what: string): string => {
  switch (failure._tag) {
    case "OutboundTimedOut":
      return `no complete answer within ${Duration.format(timeout)}`
    case "AnswerTooLarge":
      return `the ${what} exceeds ${maxBodyBytes} bytes`
    default:
      return failure.message
  }
}

/** One GET of `url` through the guard, parsed; `what` names the resource in reasons. */
export const fetchJson = (url: URL, options: Options, what: string) =>
  Effect.gen(function* () {
    const timeout = Duration.decode(options.timeout ?? defaultTimeout)
    // The guard's time limit covers resolution, connection and body; parsing is immediate.
    const response = yield* GuardedFetch.request(
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
    ).pipe(Effect.mapError((failure) => unavailable(reasonOf(failure, timeout, what), answerOf(failure))))
    const body = GuardedFetch.text(response)
    const json = yield* Either.try({
      try: (): unknown => JSON.parse(body),
      catch: () => unavailable(`the ${what} is not valid JSON`)
    })
    return {
      json,
      bytes: Buffer.byteLength(body),
      timeToLive: timeToLive(response.headers.get("cache-control") ?? undefined)
    } satisfies Fetched
  })
