import * as HttpMessage from "../HttpMessage.js"

/** Token responses and errors must never be cached (RFC 6749 §5.1, §5.2). */
export const noStore = { "cache-control": "no-store", pragma: "no-cache" }

/** Every JSON answer of the oauth service, uncached unless the caller says otherwise. */
export const json = (body: unknown, status = 200, headers: Readonly<Record<string, string>> = {}) =>
  HttpMessage.json(body, status, { ...noStore, ...headers })
