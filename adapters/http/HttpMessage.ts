import type { IncomingHttpHeaders } from "node:http"

/**
 * A request as every route sees it: read in full (within the server's body limit), its route
 * matched, its id and client address settled by the server (Server.ts).
 */
export interface HttpRequest {
  readonly method: string
  /** The path as sent, without the query. */
  readonly path: string
  /** The route template it matched, e.g. `/admin/users/{user_id}`. */
  readonly route: string
  /** The template's parameters, percent-decoded. */
  readonly params: Readonly<Record<string, string>>
  /** The raw query string, without the `?`; empty when there is none. */
  readonly query: string
  readonly headers: IncomingHttpHeaders
  /** The body as UTF-8 text; empty when there is none. */
  readonly body: string
  /** The client's address: a trusted proxy's header when configured, else the socket's. */
  readonly clientIp: string
  readonly requestId: string
}

/**
 * A header's value; several values for headers that repeat (`Set-Cookie`). A plain array, as
 * node:http takes it, so that responses go to the socket without a copy.
 */
export type HeaderValue = string | Array<string>

export interface HttpResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, HeaderValue>>
  /** Undefined: an empty body. */
  readonly body: string | undefined
}

export const json = (
  body: unknown,
  status = 200,
  headers: Readonly<Record<string, string>> = {}
): HttpResponse => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body)
})

export const empty = (status: number, headers: Readonly<Record<string, HeaderValue>> = {}): HttpResponse => ({
  status,
  headers,
  body: undefined
})

export const html = (
  body: string,
  status: number,
  headers: Readonly<Record<string, HeaderValue>> = {}
): HttpResponse => ({
  status,
  headers: { "content-type": "text/html; charset=utf-8", ...headers },
  body
})

/** A header that appears once, or the first of several; undefined when absent. */
export const header = (request: Pick<HttpRequest, "headers">, name: string): string | undefined => {
  const value = request.headers[name]
  return typeof value === "string" ? value : value?.[0]
}

/** The media type of a Content-Type value, lower-cased, without parameters. */
export const mediaType = (contentType: string | undefined): string =>
  (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? ""
