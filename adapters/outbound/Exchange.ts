import { request as httpRequest, type IncomingMessage } from "node:http"
import { request as httpsRequest, type RequestOptions } from "node:https"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { Destination } from "./Destination.js"
import { AnswerRefused, AnswerTooLarge, DestinationUnreachable } from "./OutboundFailure.js"
import * as PinnedLookup from "./PinnedLookup.js"

/**
 * One request and its answer over a connection of its own to a checked `Destination`: the
 * socket is pinned to the checked addresses, TLS still verifies the certificate against the
 * URL's host name, and the body is read up to a limit. Node's http(s) client, not the global
 * fetch: only it takes a `lookup` per request, and it never reads proxy settings from the
 * environment, which would send the request somewhere other than the checked address.
 */

export interface Outgoing {
  readonly url: URL
  readonly method: string
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array | undefined
}

/** An answer's status line and headers, before its body. */
export interface Head {
  readonly status: number
  readonly headers: Headers
}

export interface Answer extends Head {
  readonly body: Uint8Array
}

/** What to do with an answer once its head is in: read the body, drop it, or refuse the answer. */
export type HeadVerdict =
  | { readonly _tag: "Read" }
  | { readonly _tag: "Skip" }
  | { readonly _tag: "Refuse"; readonly reason: string }

export const read: HeadVerdict = { _tag: "Read" }
export const skip: HeadVerdict = { _tag: "Skip" }
export const refuse = (reason: string): HeadVerdict => ({ _tag: "Refuse", reason })

export interface Settings {
  readonly maxBytes: number
  /** Tests only: PEM certificates trusted instead of Node's root store. */
  readonly ca: ReadonlyArray<string> | undefined
  readonly onHead: (head: Head) => HeadVerdict
}

const headersOf = (raw: ReadonlyArray<string>): Either.Either<Headers, string> =>
  Either.try({
    try: () => {
      const headers = new Headers()
      for (let index = 0; index + 1 < raw.length; index += 2) {
        const name = raw[index]
        const value = raw[index + 1]
        if (name !== undefined && value !== undefined) headers.append(name, value)
      }
      return headers
    },
    catch: () => "answered with a header fetch cannot hold"
  })

/** Sends `outgoing` to `destination` and reads the answer as `settings` direct. */
export const exchange = (
  outgoing: Outgoing,
  destination: Destination,
  settings: Settings
): Effect.Effect<Answer, DestinationUnreachable | AnswerTooLarge | AnswerRefused> =>
  Effect.async((resume) => {
    const host = destination.url.hostname
    let settled = false
    const settle = (
      outcome: Effect.Effect<Answer, DestinationUnreachable | AnswerTooLarge | AnswerRefused>
    ) => {
      if (settled) return
      settled = true
      resume(outcome)
    }
    const unreachable = (message: string, code?: string) =>
      new DestinationUnreachable({ host, message, ...(code === undefined ? {} : { code }) })

    const options: RequestOptions = {
      protocol: destination.url.protocol,
      hostname: destination.hostname,
      port: destination.port,
      path: `${destination.url.pathname}${destination.url.search}`,
      method: outgoing.method,
      headers: {
        ...outgoing.headers,
        // Bodies are counted against the limit as they arrive, so they must arrive as they are.
        "accept-encoding": "identity",
        ...(outgoing.body === undefined ? {} : { "content-length": String(outgoing.body.byteLength) })
      },
      lookup: PinnedLookup.of(destination.addresses),
      // A fresh connection each time: a pooled one might have been opened to another address.
      agent: false,
      ...(settings.ca === undefined ? {} : { ca: [...settings.ca] })
    }
    const send = destination.url.protocol === "https:" ? httpsRequest : httpRequest

    const onResponse = (response: IncomingMessage) => {
      const status = response.statusCode ?? 0
      const fail = (error: DestinationUnreachable | AnswerTooLarge | AnswerRefused) => {
        client.destroy()
        settle(Effect.fail(error))
      }
      const tooLarge = () =>
        fail(
          new AnswerTooLarge({
            host,
            status,
            limit: settings.maxBytes,
            message: `the answer from ${host} exceeds ${settings.maxBytes} bytes`
          })
        )
      const headers = headersOf(response.rawHeaders)
      if (Either.isLeft(headers)) return fail(unreachable(`${host} ${headers.left}`))
      // Fetch's Response cannot carry any other status, and no server we call sends one.
      if (status < 200 || status > 599) return fail(unreachable(`${host} answered with status ${status}`))
      const verdict = settings.onHead({ status, headers: headers.right })
      if (verdict._tag === "Refuse") return fail(new AnswerRefused({ host, status, message: verdict.reason }))
      if (verdict._tag === "Skip") {
        client.destroy()
        return settle(Effect.succeed({ status, headers: headers.right, body: new Uint8Array(0) }))
      }
      const coding = headers.right.get("content-encoding")
      if (coding !== null && coding.trim().toLowerCase() !== "identity") {
        return fail(
          new AnswerRefused({
            host,
            status,
            message: `${host} answered with content-encoding ${coding}, which is not decoded`
          })
        )
      }
      // The length a HEAD or a 304 announces is that of a body they do not carry.
      const bodiless = outgoing.method === "HEAD" || status === 204 || status === 304
      const declared = Number(headers.right.get("content-length") ?? Number.NaN)
      if (!bodiless && Number.isFinite(declared) && declared > settings.maxBytes) return tooLarge()
      const chunks: Array<Buffer> = []
      let size = 0
      response.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > settings.maxBytes) tooLarge()
        else chunks.push(chunk)
      })
      response.on("end", () =>
        settle(
          Effect.succeed({ status, headers: headers.right, body: new Uint8Array(Buffer.concat(chunks)) })
        )
      )
      response.on("error", (error: NodeJS.ErrnoException) =>
        fail(unreachable(`${host}: ${error.message}`, error.code))
      )
      // After "end" this is a no-op; before it, the server hung up mid-body.
      response.on("close", () =>
        fail(unreachable(`the connection to ${host} closed before the answer ended`))
      )
    }

    const client = send(options, onResponse)
    client.on("error", (error: NodeJS.ErrnoException) =>
      settle(Effect.fail(unreachable(`could not reach ${host}: ${error.message}`, error.code)))
    )
    if (outgoing.body === undefined) client.end()
    else client.end(Buffer.from(outgoing.body))
    // On the time limit or an interruption: drop the connection.
    return Effect.sync(() => client.destroy())
  })
