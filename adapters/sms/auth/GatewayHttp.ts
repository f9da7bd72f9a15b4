import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Channel, SmsSendFailed } from "../../../application/auth/ports/SmsSender.js"
import * as GuardedFetch from "../../outbound/GuardedFetch.js"
import type { OutboundFailure } from "../../outbound/OutboundFailure.js"
import type * as PrivateAddresses from "../../outbound/PrivateAddresses.js"

/**
 * The one HTTP call every SMS gateway makes: a form posted through the outbound guard
 * (`GuardedFetch`: https to public addresses, or to the private ones the operator lists, the
 * connection pinned to the checked address), within a time limit, its answer read as JSON when it is JSON. What cannot reach
 * the gateway is an `SmsSendFailed` here; what the gateway answered is for each gateway to read.
 */

/** Supabase Auth's time limit for a call to a gateway (its `GOTRUE_INTERNAL_HTTP_TIMEOUT` default). */
export const defaultTimeout = Duration.seconds(10)

/** The largest answer read: a gateway answers a few hundred bytes, an error page a few KiB. */
export const maxAnswerBytes = 1024 * 1024

/** Where each gateway's settings may point instead of its real host: a fake in tests. */
export interface Endpoint {
  /** The gateway's API origin, e.g. `https://api.twilio.com`; a trailing slash is ignored. */
  readonly baseUrl?: string | undefined
  /** How long a call may take, the answer's body included; 10 s by default. */
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * The private addresses the operator allows (`AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`),
   * which the outbound guard refuses otherwise; none by default.
   */
  readonly allowedPrivateAddresses?: PrivateAddresses.AllowList | undefined
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

/**
 * The guard's failure as the gateway's: the gateway's name and the reason, never the URL
 * (which may carry an account id) nor anything of the request. The message reaches the client
 * (`sms_send_failed`), so a refused address is not described there; the log says why.
 */
const failureOf = (gateway: string, failure: OutboundFailure, timeout: Duration.Duration): SmsSendFailed => {
  switch (failure._tag) {
    case "OutboundTimedOut":
      return new SmsSendFailed({ message: `${gateway} did not answer within ${Duration.format(timeout)}` })
    case "DestinationUnreachable":
      return new SmsSendFailed({ message: `could not reach ${gateway} (${failure.code ?? failure.message})` })
    case "AnswerTooLarge":
      return new SmsSendFailed({
        message: `${gateway} answered ${failure.status} with more than ${failure.limit} bytes`
      })
    case "DestinationRefused":
      return new SmsSendFailed({ message: `could not reach ${gateway} (its address is not one we call)` })
    case "RedirectRefused":
    case "AnswerRefused":
      return new SmsSendFailed({
        message: `${gateway} answered ${failure.status} in a form that is not read`
      })
  }
}

/**
 * Posts `form` to `url` through the guard, within the endpoint's time limit. A redirect is
 * the answer, not followed: a redirected POST loses its body, and no gateway redirects its API.
 */
export const postForm = (
  gateway: string,
  url: string,
  form: URLSearchParams,
  headers: Readonly<Record<string, string>>,
  endpoint: Endpoint
): Effect.Effect<Answer, SmsSendFailed> => {
  const timeout = timeoutOf(endpoint)
  return GuardedFetch.request(
    {
      url,
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json"
      },
      body: form.toString()
    },
    {
      timeout,
      maxBytes: maxAnswerBytes,
      redirect: "manual",
      ...(endpoint.allowedPrivateAddresses === undefined
        ? {}
        : { allowedPrivateAddresses: endpoint.allowedPrivateAddresses })
    }
  ).pipe(
    Effect.map((response) => ({ status: response.status, json: parseJson(GuardedFetch.text(response)) })),
    Effect.tapError((failure) =>
      failure._tag === "DestinationRefused"
        ? Effect.logWarning("SMS gateway refused by the outbound guard").pipe(
            Effect.annotateLogs({ "sms.gateway": gateway, "outbound.reason": failure.message })
          )
        : Effect.void
    ),
    Effect.mapError((failure) => failureOf(gateway, failure, timeout))
  )
}

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
