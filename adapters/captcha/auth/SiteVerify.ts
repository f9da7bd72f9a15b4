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

/**
 * The `siteverify` call hCaptcha and Cloudflare Turnstile share (Turnstile copied hCaptcha's,
 * which copied reCAPTCHA's): a form-encoded POST of the secret and the token, answered with
 * `{"success": bool, "error-codes": [...]}` and fields neither service reads here.
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

/** Why the call failed, without the request: its form holds the secret. */
const reasonOf = (error: unknown, timeout: Duration.Duration): string => {
  if (error instanceof Error && error.name === "TimeoutError") {
    return `no answer within ${Duration.format(timeout)}`
  }
  // undici says only "fetch failed" and keeps the network error (ECONNREFUSED, …) as the cause.
  if (error instanceof Error && error.cause instanceof Error)
    return `${error.message}: ${error.cause.message}`
  return error instanceof Error ? error.message : String(error)
}

/** The answer's status and text, at most `maxAnswerBytes`; throws with the reason when not. */
const receive = async (url: string, form: URLSearchParams, signal: AbortSignal): Promise<Received> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: form.toString(),
    signal,
    // A redirected POST loses its body (Go's client turns it into a GET); neither provider
    // redirects its siteverify, so one is a misconfigured URL, refused outright.
    redirect: "error"
  })
  const reader = response.body?.getReader()
  const chunks: Array<Uint8Array> = []
  let total = 0
  for (;;) {
    const chunk = await reader?.read()
    if (chunk === undefined || chunk.done) break
    total += chunk.value.byteLength
    if (total > maxAnswerBytes) {
      await reader?.cancel()
      throw new Error(`answer larger than ${maxAnswerBytes} bytes (status ${response.status})`)
    }
    chunks.push(chunk.value)
  }
  return { status: response.status, text: new TextDecoder().decode(Buffer.concat(chunks)) }
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

/**
 * POSTs `form` to `url` and reads the verdict, within `timeout`. The limit and the fiber's
 * interruption abort the request through one AbortController held here: a signal made by
 * AbortSignal.any or AbortSignal.timeout can be collected on Node 20 before it fires, leaving the
 * request waiting forever.
 */
export const post = (url: string, form: URLSearchParams, timeout: Duration.Duration) =>
  Effect.tryPromise({
    try: async (interrupted) => {
      const controller = new AbortController()
      const timer = setTimeout(
        () => controller.abort(new DOMException("timed out", "TimeoutError")),
        Duration.toMillis(timeout)
      )
      const onInterrupt = () => controller.abort(interrupted.reason)
      interrupted.addEventListener("abort", onInterrupt)
      try {
        return await receive(url, form, controller.signal)
      } finally {
        clearTimeout(timer)
        interrupted.removeEventListener("abort", onInterrupt)
      }
    },
    catch: (error) => new CaptchaUnavailable({ message: reasonOf(error, timeout) })
  }).pipe(
    Effect.flatMap((received) =>
      Either.match(interpret(received), {
        onLeft: (message) => Effect.fail(new CaptchaUnavailable({ message })),
        onRight: Effect.succeed
      })
    )
  )
