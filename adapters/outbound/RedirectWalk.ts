import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Answer, Head, Outgoing } from "./Exchange.js"
import { RedirectRefused } from "./OutboundFailure.js"

/**
 * Redirects, followed by hand: each hop is a new call through the whole guard (its URL,
 * resolution and addresses checked again), so a public server cannot bounce us to an internal
 * one, and there are at most a bounded number of them. Requests change from hop to hop as
 * fetch changes them (WHATWG Fetch, "HTTP-redirect fetch").
 */

/** As fetch's `redirect`: follow, hand the redirect back as the answer, or fail on it. */
export type Mode = "follow" | "manual" | "error"

const redirectStatuses: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

/** Whether the walk acts on an answer with this head: a redirect status and somewhere to go. */
export const isRedirect = (head: Head): boolean =>
  redirectStatuses.has(head.status) && head.headers.has("location")

/** Never sent to another origin than the one they were given for. */
const credentialHeaders: ReadonlySet<string> = new Set(["authorization", "cookie", "proxy-authorization"])
/** Dropped with the body when a redirect turns the request into a GET. */
const bodyHeaders: ReadonlySet<string> = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location"
])

/** The request a redirect to `location` asks for; none when `location` is not a URL. */
export const nextHop = (previous: Outgoing, status: number, location: string): Option.Option<Outgoing> => {
  const url = URL.canParse(location, previous.url.href) ? new URL(location, previous.url) : undefined
  if (url === undefined) return Option.none()
  const toGet =
    (status === 303 && previous.method !== "HEAD") ||
    ((status === 301 || status === 302) && previous.method === "POST")
  const crossOrigin = url.origin !== previous.url.origin
  const headers = Object.fromEntries(
    Object.entries(previous.headers).filter(
      ([name]) => !(toGet && bodyHeaders.has(name)) && !(crossOrigin && credentialHeaders.has(name))
    )
  )
  return Option.some({
    url,
    method: toGet ? "GET" : previous.method,
    headers,
    body: toGet ? undefined : previous.body
  })
}

export interface Walked {
  readonly answer: Answer
  /** The URL that gave the answer: the last hop's. */
  readonly url: URL
  readonly redirected: boolean
}

/**
 * Sends `first` through `hop`, then each redirect's request as `mode` says, at most
 * `maxRedirects` of them. `hop` checks and sends one request; for a redirect it need not read
 * the body (`isRedirect` tells it when).
 */
export const walk = <E>(
  first: Outgoing,
  mode: Mode,
  maxRedirects: number,
  hop: (outgoing: Outgoing) => Effect.Effect<Answer, E>
): Effect.Effect<Walked, E | RedirectRefused> =>
  Effect.gen(function* () {
    let outgoing = first
    for (let redirects = 0; ; redirects++) {
      const answer = yield* hop(outgoing)
      const location = answer.headers.get("location")
      if (mode === "manual" || !isRedirect(answer) || location === null) {
        return { answer, url: outgoing.url, redirected: redirects > 0 }
      }
      const host = outgoing.url.hostname
      const refuse = (message: string) => new RedirectRefused({ host, status: answer.status, message })
      if (mode === "error") {
        return yield* refuse(`${host} answered ${answer.status}: redirects are not followed`)
      }
      if (redirects >= maxRedirects) {
        return yield* refuse(
          `${host} answered ${answer.status} after ${maxRedirects} redirects, the most followed`
        )
      }
      const next = nextHop(outgoing, answer.status, location)
      if (Option.isNone(next)) {
        return yield* refuse(`${host} answered ${answer.status} with a location that is not a URL`)
      }
      outgoing = next.value
    }
  })
