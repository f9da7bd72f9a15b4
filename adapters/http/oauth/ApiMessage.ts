import type { IncomingHttpHeaders } from "node:http"

/**
 * A request to one of the machine endpoints (token, introspect, revoke, register), read in full
 * by the node:http driver (ApiServer.ts) before the route runs.
 */
export interface ApiRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly remoteAddress: string | undefined
}

export interface ApiResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** None: an empty body. */
  readonly body: string | undefined
}

/** Token responses and errors must never be cached (RFC 6749 §5.1). */
export const noStore = { "cache-control": "no-store", pragma: "no-cache" }

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): ApiResponse => ({
  status,
  headers: { "content-type": "application/json", ...noStore, ...headers },
  body: JSON.stringify(body)
})

export const empty = (status: number, headers: Record<string, string>): ApiResponse => ({
  status,
  headers,
  body: undefined
})
