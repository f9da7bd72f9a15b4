import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Channel, SmsSendFailed } from "../../../application/auth/ports/SmsSender.js"

/**
 * The one HTTP call every SMS gateway makes: a form posted with the global `fetch`, within a
 * time limit, its answer read as JSON when it is JSON. What cannot reach the gateway is an
 * `SmsSendFailed` here; what the gateway answered is for each gateway to read.
 */

/** Supabase Auth's time limit for a call to a gateway (its `GOTRUE_INTERNAL_HTTP_TIMEOUT` default). */
export const defaultTimeout = Duration.seconds(10)

/** Where each gateway's settings may point instead of its real host: a fake in tests. */
export interface Endpoint {
  /** The gateway's API origin, e.g. `https://api.twilio.com`; a trailing slash is ignored. */
  readonly baseUrl?: string | undefined
  /** How long a call may take, the answer's body included; 10 s by default. */
  readonly timeout?: Duration.DurationInput | undefined
}

export interface Answer {
  readonly status: number
  /** The body parsed as JSON; none when it is empty or not JSON. */
  readonly json: Option.Option<unknown>
}

export const isSuccess = (answer: Answer): boolean => answer.status >= 200 && answer.status < 300

/** `baseUrl` (else `fallback`) joined with `path`, which starts with a slash. */
export const urlOf = (endpoint: Endpoint, fallback: string, path: string): string =>
  `${(endpoint.baseUrl ?? fallback).replace(/\/+$/, "")}${path}`

export const timeoutOf = (endpoint: Endpoint): Duration.Duration =>
  Duration.decode(endpoint.timeout ?? defaultTimeout)

/** The number as E.164 with its `+`, however the caller wrote it. */
export const withPlus = (phone: string): string => `+${digitsOf(phone)}`

/** The number's digits without `+`, as MessageBird, Vonage and Textlocal take it. */
export const digitsOf = (phone: string): string => phone.replace(/^\+/, "").replace(/\s/g, "")

const parseJson = (text: string): Option.Option<unknown> => {
  try {
    const value: unknown = JSON.parse(text)
    return Option.some(value)
  } catch {
    return Option.none()
  }
}

/** Node's reason for a failed connection (`ECONNREFUSED`, `ENOTFOUND`), else fetch's own words. */
const reasonOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const cause: unknown = error.cause
  if (typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string") {
    return cause.code
  }
  return error.message
}

/**
 * Posts `form` to `url`. A gateway that cannot be reached, or does not finish answering within
 * `timeout`, is refused with a message naming only the gateway and the reason: never the URL,
 * which may carry an account id, nor anything of the request.
 */
export const postForm = (
  gateway: string,
  url: string,
  form: URLSearchParams,
  headers: Readonly<Record<string, string>>,
  timeout: Duration.Duration
): Effect.Effect<Answer, SmsSendFailed> =>
  Effect.tryPromise({
    try: async (interruption) => {
      // One controller for both the time limit and the fiber's interruption, held here: a
      // signal made by AbortSignal.any or AbortSignal.timeout can be collected on Node 20
      // before it fires, leaving the request waiting forever.
      const controller = new AbortController()
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        controller.abort()
      }, Duration.toMillis(timeout))
      const onInterrupt = () => controller.abort(interruption.reason)
      interruption.addEventListener("abort", onInterrupt)
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: {
            ...headers,
            "content-type": "application/x-www-form-urlencoded",
            accept: "application/json"
          },
          body: form.toString(),
          signal: controller.signal,
          redirect: "error"
        })
        const text = await response.text()
        return { status: response.status, json: parseJson(text) }
      } catch (error) {
        throw new Error(
          timedOut
            ? `${gateway} did not answer within ${Duration.format(timeout)}`
            : `could not reach ${gateway} (${reasonOf(error)})`
        )
      } finally {
        clearTimeout(timer)
        interruption.removeEventListener("abort", onInterrupt)
      }
    },
    catch: (error) => new SmsSendFailed({ message: error instanceof Error ? error.message : String(error) })
  })

/** The refusal for an answer that says nothing readable: a 5xx page, an empty or garbled body. */
export const unreadable = (gateway: string, answer: Answer): SmsSendFailed =>
  new SmsSendFailed({
    message: isSuccess(answer)
      ? `${gateway} answered ${answer.status} with a body it does not document`
      : `${gateway} answered ${answer.status}`
  })

/** A message on a channel the gateway does not deliver on; callers ask `supports` first. */
export const unsupported = (gateway: string, channel: Channel): SmsSendFailed =>
  new SmsSendFailed({ message: `${gateway} does not deliver on the ${channel} channel` })
