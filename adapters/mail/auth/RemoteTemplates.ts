import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { Kind } from "../../../domain/auth/Mail.js"
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
}

export const defaultFreshFor = Duration.minutes(10)
export const defaultTimeout = Duration.seconds(10)
export const defaultMaxBytes = 512 * 1024

interface Held {
  /** None: the last fetch failed and no template was had before it. */
  readonly template: Option.Option<GoTemplate.Template>
  readonly fetchedAt: number
}

/** The body of `url` as text, at most `maxBytes`, within `timeout`; a reason when not. */
const fetchText = (url: string, timeout: Duration.Duration, maxBytes: number) =>
  Effect.tryPromise({
    try: async (signal) => {
      // One controller for both the time limit and the fiber's interruption, held here: a
      // signal made by AbortSignal.any can be collected on Node 20 before it fires, leaving
      // the fetch waiting forever.
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(new Error("timed out")), Duration.toMillis(timeout))
      const onInterrupt = () => controller.abort(signal.reason)
      signal.addEventListener("abort", onInterrupt)
      try {
        return await readTemplate(url, controller.signal, maxBytes)
      } finally {
        clearTimeout(timer)
        signal.removeEventListener("abort", onInterrupt)
      }
    },
    catch: (error) => (error instanceof Error ? error.message : String(error))
  })

/** The body of `url` as text, at most `maxBytes`; throws with the reason when not. */
const readTemplate = async (url: string, signal: AbortSignal, maxBytes: number) => {
  const response = await fetch(url, { signal, redirect: "error" })
  // A body not read holds its connection: it is cancelled whenever it is not wanted.
  if (!response.ok) {
    await response.body?.cancel()
    throw new Error(`status ${response.status}`)
  }
  const length = Number(response.headers.get("content-length") ?? "0")
  if (length > maxBytes) {
    await response.body?.cancel()
    throw new Error(`larger than ${maxBytes} bytes`)
  }
  const reader = response.body?.getReader()
  const chunks: Array<Uint8Array> = []
  let total = 0
  for (;;) {
    const chunk = await reader?.read()
    if (chunk === undefined || chunk.done) break
    total += chunk.value.byteLength
    if (total > maxBytes) {
      await reader?.cancel()
      throw new Error(`larger than ${maxBytes} bytes`)
    }
    chunks.push(chunk.value)
  }
  return new TextDecoder().decode(Buffer.concat(chunks))
}

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
          const fetched = yield* Effect.either(fetchText(url, timeout, maxBytes))
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
