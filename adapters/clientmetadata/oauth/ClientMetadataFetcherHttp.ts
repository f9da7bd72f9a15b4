import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import {
  ClientMetadataFetcher,
  ClientMetadataUnavailable
} from "../../../application/oauth/ports/ClientMetadataFetcher.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as ClientMetadataDocument from "../../../domain/oauth/ClientMetadataDocument.js"
import * as AddressRange from "../../outbound/AddressRange.js"
import * as DocumentCache from "./DocumentCache.js"
import * as PublishedJson from "./PublishedJson.js"

/**
 * Fetches Client ID Metadata Documents over https, through the outbound guard
 * (`PublishedJson`: public addresses only unless the operator allows more, no redirects, a
 * capped body, a time limit), and keeps them for their time to live.
 */

export const maxBodyBytes = PublishedJson.maxBodyBytes
export type Options = PublishedJson.Options
export const timeToLive = PublishedJson.timeToLive

/**
 * Only ordinary public unicast addresses are fetched from (the guard's `AddressRange`), besides
 * those the operator lists (`Options.allowedPrivateAddresses`): loopback, RFC 1918, unique local, link-local, CGNAT, unspecified, multicast, broadcast,
 * documentation, reserved and cloud metadata addresses are all refused, and IPv6 forms that
 * embed an IPv4 address are judged by it (mapped, NAT64) or refused (6to4, Teredo, …).
 */
export const isPublicAddress = AddressRange.isPublic

const unavailable = (url: URL, reason: string, answer: ClientMetadataUnavailable["answer"] = "refused") =>
  new ClientMetadataUnavailable({ url: url.href, reason, answer })

/** The fetcher with its own cache; `options` are for tests (see `Options`). */
export const make = (options: Options = {}) =>
  Effect.sync(() => {
    const cache = DocumentCache.make()

    const fetchOnce = (url: URL) =>
      Effect.gen(function* () {
        const fetched = yield* PublishedJson.fetchJson(url, options, "document").pipe(
          Effect.mapError((failure) => unavailable(url, failure.reason, failure.answer))
        )
        const document = yield* ClientMetadataDocument.parse(url, fetched.json).pipe(
          Effect.mapError((invalid) => unavailable(url, invalid.message))
        )
        return { document, bytes: fetched.bytes, timeToLive: fetched.timeToLive }
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
