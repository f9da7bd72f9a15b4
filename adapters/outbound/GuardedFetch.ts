import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Destination from "./Destination.js"
import * as Exchange from "./Exchange.js"
import { DestinationRefused, type OutboundFailure, OutboundTimedOut } from "./OutboundFailure.js"
import * as PrivateAddresses from "./PrivateAddresses.js"
import * as RedirectWalk from "./RedirectWalk.js"

/**
 * The one way the services call out over HTTP: client metadata documents, mail templates, SMS
 * gateways, captcha providers and (through `makeFetch`) the external identity providers. Any
 * of those URLs may be chosen by someone other than the operator, or point somewhere the
 * operator did not mean, so every call is a server-side request forgery surface. The guard:
 * - goes only to https, and to plain http only at private addresses the operator allows;
 * - resolves the host and refuses it unless every address is public unicast (`AddressRange`)
 *   or a private address the operator allows (`PrivateAddresses`), and cloud metadata services
 *   by name and by address whatever the operator allows;
 * - connects to exactly the addresses it checked (`PinnedLookup`), so DNS rebinding cannot
 *   move the connection elsewhere after the check;
 * - follows redirects by hand, checking each hop as the first, at most `maxRedirects`;
 * - bounds each call in time (resolution, redirects and body included) and body size;
 * - fails with the typed `OutboundFailure`s, whose messages name a host at most.
 *
 * It makes no span of its own: each caller's span covers the call and is annotated with what
 * the caller may show, whereas a URL here may hold an account id.
 */

export const defaultTimeout = Duration.seconds(10)
export const defaultMaxBytes = 1024 * 1024
export const defaultMaxRedirects = 5

export interface Options {
  /** The limit on the whole call, resolution, redirects and body included; 10 s by default. */
  readonly timeout?: Duration.DurationInput
  /** The largest body read, in bytes; 1 MiB by default. */
  readonly maxBytes?: number
  /** As fetch's `redirect`: `follow` (the default), `manual` (a 3xx is the answer) or `error`. */
  readonly redirect?: RedirectWalk.Mode
  /** The most redirects followed; 5 by default. */
  readonly maxRedirects?: number
  /**
   * A reason to drop the final answer on its status and headers, before its body is read (a
   * status or content type the caller will not take): the call fails with `AnswerRefused`.
   */
  readonly screen?: (head: Exchange.Head) => Option.Option<string>
  /**
   * The private addresses the operator allows (`PrivateAddresses`, from
   * `OUTBOUND_ALLOWED_PRIVATE_ADDRESSES` or `AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`): reached
   * over https or plain http. None by default: public addresses only, over https only.
   */
  readonly allowedPrivateAddresses?: PrivateAddresses.AllowList
  /** Tests only: PEM certificates to trust instead of Node's root store. */
  readonly ca?: ReadonlyArray<string>
  /** Tests only: the resolver of host names; the operating system's by default. */
  readonly resolve?: Destination.Resolver
}

export interface GuardedRequest {
  readonly url: URL | string
  /** GET by default. */
  readonly method?: string
  readonly headers?: Readonly<Record<string, string>>
  /** A `URLSearchParams` is sent as a form, with its content type unless one is given. */
  readonly body?: string | Uint8Array | URLSearchParams
}

export interface GuardedResponse {
  readonly status: number
  readonly headers: Headers
  readonly body: Uint8Array
  /** Where the answer came from: the last hop's URL. */
  readonly url: URL
  readonly redirected: boolean
}

/** The body as UTF-8 text. */
export const text = (response: GuardedResponse): string => new TextDecoder().decode(response.body)

/**
 * Headers the connection sets itself (from the checked destination and the body); a caller's
 * own would contradict them.
 */
const connectionHeaders: ReadonlySet<string> = new Set([
  "host",
  "connection",
  "keep-alive",
  "content-length",
  "transfer-encoding",
  "accept-encoding",
  "te",
  "trailer",
  "upgrade",
  "proxy-connection"
])

const outgoingOf = (url: URL, request: GuardedRequest): Exchange.Outgoing => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const lower = name.toLowerCase()
    if (!connectionHeaders.has(lower)) headers[lower] = value
  }
  const body = request.body
  if (body instanceof URLSearchParams && headers["content-type"] === undefined) {
    headers["content-type"] = "application/x-www-form-urlencoded;charset=UTF-8"
  }
  return {
    url,
    method: (request.method ?? "GET").toUpperCase(),
    headers,
    body:
      body === undefined
        ? undefined
        : body instanceof Uint8Array
          ? body
          : new TextEncoder().encode(body instanceof URLSearchParams ? body.toString() : body)
  }
}

/**
 * Fails with `onTimeout()` once `timeout` has passed on the wall clock. Not Effect's `Clock`:
 * the limit bounds a wait on the network, which a test clock (moved only when a test says so,
 * to drive caches and expiry) must not stretch into forever.
 */
const timer = <E>(timeout: Duration.Duration, onTimeout: () => E): Effect.Effect<never, E> =>
  Effect.async((resume) => {
    const handle = setTimeout(() => resume(Effect.fail(onTimeout())), Duration.toMillis(timeout))
    return Effect.sync(() => clearTimeout(handle))
  })

/** Sends `request` through the guard; see the module's comment for what is refused. */
export const request = (
  outbound: GuardedRequest,
  options: Options = {}
): Effect.Effect<GuardedResponse, OutboundFailure> =>
  Effect.suspend(() => {
    const url =
      typeof outbound.url !== "string"
        ? outbound.url
        : URL.canParse(outbound.url)
          ? new URL(outbound.url)
          : undefined
    if (url === undefined) {
      return Effect.fail(new DestinationRefused({ host: "", message: "the destination is not a URL" }))
    }
    const timeout = Duration.decode(options.timeout ?? defaultTimeout)
    const mode = options.redirect ?? "follow"
    const policy: Destination.Policy = {
      allowedPrivateAddresses: options.allowedPrivateAddresses ?? PrivateAddresses.none,
      resolve: options.resolve ?? Destination.systemResolver
    }
    const settings: Exchange.Settings = {
      maxBytes: options.maxBytes ?? defaultMaxBytes,
      ca: options.ca,
      onHead: (head) => {
        // A redirect the walk acts on is never read: its body is not the answer.
        if (mode !== "manual" && RedirectWalk.isRedirect(head)) return Exchange.skip
        const reason = options.screen === undefined ? Option.none() : options.screen(head)
        return Option.match(reason, { onNone: () => Exchange.read, onSome: Exchange.refuse })
      }
    }
    const hop = (outgoing: Exchange.Outgoing) =>
      Effect.flatMap(Destination.check(outgoing.url, policy), (destination) =>
        Exchange.exchange(outgoing, destination, settings)
      )
    return RedirectWalk.walk(
      outgoingOf(url, outbound),
      mode,
      options.maxRedirects ?? defaultMaxRedirects,
      hop
    ).pipe(
      Effect.map(({ answer, url, redirected }) => ({ ...answer, url, redirected })),
      Effect.raceFirst(
        timer(
          timeout,
          () =>
            new OutboundTimedOut({
              host: url.hostname,
              millis: Duration.toMillis(timeout),
              message: `${url.hostname} gave no complete answer within ${Duration.format(timeout)}`
            })
        )
      )
    )
  })

/**
 * `RequestInit` whose `body` may also be written out as `undefined`, as openid-client writes it
 * for a request without one.
 */
export type FetchInit = Omit<RequestInit, "body"> & { readonly body?: RequestInit["body"] | undefined }

/** A function with the signature of the global `fetch`. */
export type Fetch = (input: string | URL | Request, init?: FetchInit) => Promise<Response>

/** Statuses whose answers have no body (fetch's "null body status"). */
const nullBodyStatuses: ReadonlySet<number> = new Set([101, 103, 204, 205, 304])

/**
 * The guard as a drop-in for the global `fetch`, for libraries that take one (openid-client's
 * `customFetch`). The request's own `redirect` mode and abort signal are honoured; an abort
 * rejects with the signal's reason, as fetch does; a refusal rejects with the
 * `OutboundFailure`. Bodies are read whole (up to `maxBytes`) before the promise resolves.
 */
export const makeFetch =
  (options: Omit<Options, "redirect" | "screen"> = {}): Fetch =>
  async (input, init) => {
    const { body: given, ...rest } = init ?? {}
    const incoming = new Request(input, given === undefined ? rest : { ...rest, body: given })
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined)
    const body = incoming.body === null ? undefined : new Uint8Array(await incoming.arrayBuffer())
    const headers: Record<string, string> = {}
    incoming.headers.forEach((value, name) => {
      headers[name] = value
    })
    const call = request(
      { url: incoming.url, method: incoming.method, headers, ...(body === undefined ? {} : { body }) },
      { ...options, redirect: incoming.redirect }
    )
    const exit = await Effect.runPromiseExit(call, signal === undefined || signal === null ? {} : { signal })
    if (Exit.isFailure(exit)) {
      if (signal?.aborted === true) throw signal.reason
      throw Cause.squash(exit.cause)
    }
    const answer = exit.value
    const empty = nullBodyStatuses.has(answer.status) || incoming.method === "HEAD"
    const response = new Response(empty ? null : answer.body, {
      status: answer.status,
      headers: answer.headers
    })
    // Response's constructor cannot set these; fetch's callers may read them.
    Object.defineProperty(response, "url", { value: answer.url.href })
    Object.defineProperty(response, "redirected", { value: answer.redirected })
    return response
  }
