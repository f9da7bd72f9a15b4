import * as Batched from "./Batched.js"

/**
 * Failures that mean PostgreSQL is out of reach for now (restarting, failing over, refusing
 * connections, too far behind to take more calls), as opposed to a fault in a statement: the
 * HTTP server answers them with 503 and `Retry-After`, not 500.
 */

/** Socket errors on the way to the server. */
const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ENOTFOUND"
])

/**
 * SQLSTATEs of a server that is going away or not yet there: class 08 (connection exception),
 * 57P01–57P03 (admin shutdown, crash shutdown, cannot connect now), 53300 (too many
 * connections).
 */
const unavailableState = (code: string) =>
  code.startsWith("08") || /^57P0[1-3]$/.test(code) || code === "53300"

/** What the `pg` driver says when the connection died under a statement or never came. */
const driverMessages = [
  "Connection terminated",
  "timeout exceeded when trying to connect",
  // query_timeout (Database.ts): the server took the statement and never answered.
  "Query read timeout",
  "Client has encountered a connection error",
  "Connection ended unexpectedly",
  "cannot connect to PostgreSQL"
]

const field = (value: object, name: string): unknown => (name in value ? Reflect.get(value, name) : undefined)

/** Whether a failure, or any cause it wraps, says the database is unavailable. */
export const is = (failure: unknown, depth = 0): boolean => {
  if (typeof failure !== "object" || failure === null || depth > 8) return false
  if (failure instanceof Batched.QueueFull) return true
  const code = field(failure, "code")
  if (typeof code === "string" && (networkCodes.has(code) || unavailableState(code))) return true
  const message = field(failure, "message")
  if (typeof message === "string" && driverMessages.some((known) => message.includes(known))) return true
  const errors = field(failure, "errors")
  if (Array.isArray(errors) && errors.some((inner) => is(inner, depth + 1))) return true
  return is(field(failure, "cause"), depth + 1)
}

/**
 * Failures of a connection attempt, before any statement was sent: retrying such a statement
 * cannot run it twice. (A pool that is merely busy is not one of them: retrying would only
 * queue the statement again.)
 */
export const isBeforeSending = (failure: unknown): boolean => {
  if (typeof failure !== "object" || failure === null) return false
  const code = field(failure, "code")
  if (typeof code === "string" && (networkCodes.has(code) || code === "57P03" || code === "53300"))
    return true
  // A connection the server closed as it opened: the embedded database's socket takes one
  // connection, and turns the next away while the one before it is still closing.
  const message = field(failure, "message")
  if (typeof message === "string" && message.includes("Connection terminated unexpectedly")) return true
  // Both addresses of `localhost` refused, say.
  const errors = field(failure, "errors")
  return Array.isArray(errors) && errors.length > 0 && errors.every(isBeforeSending)
}
