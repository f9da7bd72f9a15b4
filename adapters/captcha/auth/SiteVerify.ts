import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import {
  CaptchaUnavailable,
  type Outcome,
  Passed,
  Refused
} from "../../../application/auth/ports/CaptchaVerifier.js"
import * as GuardedFetch from "../../outbound/GuardedFetch.js"
import type { OutboundFailure } from "../../outbound/OutboundFailure.js"
import type * as PrivateAddresses from "../../outbound/PrivateAddresses.js"

/**
 * The `siteverify` call hCaptcha and Cloudflare Turnstile share (Turnstile copied hCaptcha's,
 * which copied reCAPTCHA's): a form-encoded POST of the secret and the token, answered with
 * `{"success": bool, "error-codes": [...]}` and fields neither service reads here. The call goes
 * through the outbound guard (`GuardedFetch`): https to public addresses (or to the private
 * ones the operator lists), the connection pinned to the checked address.
 */

/** The largest answer read; a verification result is a few hundred bytes. */
export const maxAnswerBytes = 64 * 1024

const Answer = Schema.parseJson(
  Schema.Struct({
    success: Schema.Boolean,
    "error-codes": Schema.optionalWith(Schema.Array(Schema.String), { nullable: true })
  })
)
const decodeAnswer = Schema.decodeUnknownEither(Answer)

interface Received {
  readonly status: number
  readonly text: string
}

/** How a verification is posted: the provider's own limits. */
export interface Call {
  /** How long the call may take, the answer included. */
  readonly timeout: Duration.Duration
  /**
   * The private addresses the operator allows (`AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`),
   * which the outbound guard refuses otherwise.
   */
  readonly allowedPrivateAddresses?: PrivateAddresses.AllowList | undefined
}

/** Why the call failed, without the request: its form holds the secret. */
const reasonOf = (failure: OutboundFailure, timeout: Duration.Duration): string => {
  switch (failure._tag) {
    case "OutboundTimedOut":
      return `no answer within ${Duration.format(timeout)}`
    case "AnswerTooLarge":
      return `answer larger than ${maxAnswerBytes} bytes (status ${failure.status})`
    default:
      return failure.message
  }
}

/**
 * What an answer says. Supabase Auth reads the JSON whatever the status, so a provider that
 * refuses a request with a 4xx and its error codes is a refusal there and here. Any other
 * answer is no verdict: a success on an error status contradicts itself, and a body that is
 * not a verification result (an HTML error page from a proxy) says nothing about the token.
 */
const interpret = ({ status, text }: Received): Either.Either<Outcome, string> => {
  const answer = decodeAnswer(text)
  const ok = status >= 200 && status < 300
  if (Either.isRight(answer)) {
    const errorCodes = answer.right["error-codes"] ?? []
    if (!answer.right.success) return Either.right(Refused.make({ errorCodes }))
    if (ok) return Either.right(Passed.make({}))
  }
  return Either.left(
    ok ? `answered with something other than a verification result` : `answered with status ${status}`
  )
}

/** POSTs `form` to `url` through the guard and reads the verdict, within `call.timeout`. */
export const post = (url: string, form: URLSearchParams, call: Call) =>
  GuardedFetch.request(
    {
      url,
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString()
    },
    {
      timeout: call.timeout,
      maxBytes: maxAnswerBytes,
      // A redirected POST loses its body (Go's client turns it into a GET); neither provider
      // redirects its siteverify, so one is a misconfigured URL, refused outright.
      redirect: "error",
      ...(call.allowedPrivateAddresses === undefined
        ? {}
        : { allowedPrivateAddresses: call.allowedPrivateAddresses })
    }
  ).pipe(
    Effect.mapError((failure) => new CaptchaUnavailable({ message: reasonOf(failure, call.timeout) })),
    Effect.flatMap((response) =>
      Either.match(interpret({ status: response.status, text: GuardedFetch.text(response) }), {
        onLeft: (message) => Effect.fail(new CaptchaUnavailable({ message })),
        onRight: Effect.succeed
      })
    )
  )
