import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { Kind } from "../../../domain/auth/Mail.js"
import * as GuardedFetch from "../../outbound/GuardedFetch.js"
import type { OutboundFailure } from "../../outbound/OutboundFailure.js"
import type * as PrivateAddresses from "../../outbound/PrivateAddresses.js"
import * as GoTemplate from "./GoTemplate.js"

export interface RemoteTemplateOptions {
  /** `MAILER_TEMPLATES_<KIND>` that are set: where each kind's HTML template is fetched from. */
  readonly urls: Partial<Record<Kind, string>>
  /** How long a fetched template is used before it is fetched again. */
  readonly freshFor?: Duration.DurationInput
  /** How long a fetch may take. */
  readonly timeout?: Duration.DurationInput
  /** The largest template taken, in bytes. */
  readonly maxBytes?: number
  /**
   * The private addresses the operator allows (`AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`): a
   * template server inside the network, which the outbound guard refuses otherwise.
   */
  readonly allowedPrivateAddresses?: PrivateAddresses.AllowList
}

export const defaultFreshFor = Duration.minutes(10)
export const defaultTimeout = Duration.seconds(10)
export const defaultMaxBytes = 512 * 1024

interface Held {
  /** None: the last fetch failed and no template was had before it. */
  readonly template: Option.Option<GoTemplate.Template>
  readonly fetchedAt: number
}

/** Why a fetch failed, in the words the warning logs; none holds the template's URL. */
const reasonOf = (failure: OutboundFailure, maxBytes: number): string => {
  switch (failure._tag) {
    case "OutboundTimedOut":
      return "timed out"
    case "AnswerTooLarge":
      return `larger than ${maxBytes} bytes`
    default:
      return failure.message
  }
}

/**
 * The body of `url` as text, at most `maxBytes`, within `timeout`; a reason when not. Through
 * the outbound guard, since a template URL is a request the server makes on its own: https to
 * public addresses, https or plain http to the private ones the operator lists (a template
 * server beside the service), redirects followed (as Supabase Auth's client does) but each
 * one checked again.
 */
const fetchText = (
  url: string,
  timeout: Duration.Duration,
  maxBytes: number,
  options: RemoteTemplateOptions
) =>
  GuardedFetch.request(
    { url, headers: { accept: "text/html, */*;q=0.8" } },
    {
      timeout,
      maxBytes,
      // An error page is not a template: dropped before its body is read.
      screen: (head) =>
        head.status >= 200 && head.status < 300 ? Option.none() : Option.some(`status ${head.status}`),
      ...(options.allowedPrivateAddresses === undefined
        ? {}
        : { allowedPrivateAddresses: options.allowedPrivateAddresses })
    }
  ).pipe(
    Effect.map(GuardedFetch.text),
    Effect.mapError((failure) => reasonOf(failure, maxBytes))
  )

/**
 * The operator's HTML templates (`MAILER_TEMPLATES_<KIND>`), fetched when first needed and again
 * once `freshFor` has passed; a template that cannot be fetched or parsed is logged, and the last
 * good one (else none: the built-in body) is used until the next attempt. Fetched by the mail
 * worker, never during a request. One process's cache: every instance fetches for itself.
 */
export const make = (options: RemoteTemplateOptions) =>
  Effect.sync(() => {
    const freshFor = Duration.toMillis(Duration.decode(options.freshFor ?? defaultFreshFor))
    const timeout = Duration.decode(options.timeout ?? defaultTimeout)
    const maxBytes = options.maxBytes ?? defaultMaxBytes
    const held = new Map<Kind, Held>()

    return {
      /** The kind's template; none when none is configured or none could be had. */
      get: (kind: Kind): Effect.Effect<Option.Option<GoTemplate.Template>> =>
        Effect.gen(function* () {
          const url = options.urls[kind]
          if (url === undefined) return Option.none()
          const now = yield* Clock.currentTimeMillis
          const last = held.get(kind)
          if (last !== undefined && now - last.fetchedAt < freshFor) return last.template
          const fetched = yield* Effect.either(fetchText(url, timeout, maxBytes, options))
          const parsed = Either.flatMap(fetched, (text) =>
            Either.mapLeft(GoTemplate.parse(text), (error) => `does not parse: ${error}`)
          )
          if (Either.isLeft(parsed)) {
            yield* Effect.logWarning(
              "mail template unavailable; using the last good one or the built-in body"
            ).pipe(Effect.annotateLogs({ "mail.kind": kind, "template.error": parsed.left }))
          }
          const template = Either.match(parsed, {
            onLeft: () => last?.template ?? Option.none(),
            onRight: Option.some
          })
          held.set(kind, { template, fetchedAt: now })
          return template
        })
    }
  })
