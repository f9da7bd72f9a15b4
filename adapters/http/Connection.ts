import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http"
import type { Socket } from "node:net"
import type { HttpResponse } from "./HttpMessage.js"
import type { Problems } from "./Problems.js"

/** How long a closing connection keeps reading what the client still sends. */
const lingerMillis = 2_000

/**
 * Half-closes the socket and reads what is still coming for a moment, then drops it: closing a
 * socket with unread data makes the kernel answer with a reset, which can overtake the answer.
 */
export const lingeringClose = (socket: Socket) => {
  socket.on("data", () => {})
  socket.on("error", () => {})
  socket.end()
  setTimeout(() => socket.destroy(), lingerMillis).unref()
}

/**
 * An answer written straight to a socket that has no response object, then a lingering close.
 * The answer to a HEAD request has no body (RFC 9112 §6.3): a client would read one as garbage
 * after the answer.
 */
const writeRaw = (socket: Socket, response: HttpResponse, head: boolean) => {
  const body = response.body ?? ""
  const lines = [
    `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}`,
    ...Object.entries(response.headers).map(([name, value]) => `${name}: ${value}`),
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close"
  ]
  socket.write(`${lines.join("\r\n")}\r\n\r\n${head ? "" : body}`)
  lingeringClose(socket)
}

/**
 * Whether the request the parser refused is a HEAD request. Node names no method when it
 * refuses a request, but the request starts its packet (`rawPacket`): it is the first on its
 * connection, or the previous one has been answered.
 */
const refusedHead = (error: Error) => {
  const packet: unknown = Reflect.get(error, "rawPacket")
  return Buffer.isBuffer(packet) && packet.subarray(0, 5).toString("latin1") === "HEAD "
}

/**
 * Whether the parser's error is in bytes no answer may follow, and if so, closes the connection
 * once the answer on its way is out. Those bytes are the rest of a body whose request already
 * has its answer (the 413), bytes after a request whose answer is still to come (that answer
 * goes first), or bytes after an answer that closes the connection (RFC 9112 §9.6: nothing
 * further is processed). A second answer there would be taken by the client for the answer to
 * its next request.
 */
const closedWithoutAnswer = (socket: Socket, current: ServerResponse | undefined): boolean => {
  if (current === undefined) return false
  if (!current.req.complete) {
    // The error is in this request's body: the parser's answer is its answer, unless it has
    // one already. That one is whole (Content-Length) even if never ended.
    if (!current.headersSent) return false
    lingeringClose(socket)
    return true
  }
  if (!current.writableEnded) {
    current.once("finish", () => lingeringClose(socket))
    return true
  }
  const closes =
    !current.shouldKeepAlive || String(current.getHeader("connection") ?? "").toLowerCase() === "close"
  if (closes) lingeringClose(socket)
  return closes
}

/**
 * What Node's HTTP parser refuses, answered in the service's protocol instead of Node's bare
 * status lines: a request line or headers over its limit (431), malformed framing (400), a
 * request that took too long to arrive (408), and CONNECT, which Node otherwise leaves
 * unanswered. Each connection gets at most one such answer, and only where an answer may go.
 * `latestResponse` is the connection's latest response object, if it had a request.
 */
export const answerParserErrors = (
  server: Server,
  problems: Problems,
  latestResponse: (socket: Socket) => ServerResponse | undefined
) => {
  server.on("connect", (_req: IncomingMessage, socket: Socket) => {
    socket.on("error", () => {})
    writeRaw(socket, problems.methodNotAllowed, false)
  })
  const refusedSockets = new WeakSet<Socket>()
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    if (refusedSockets.has(socket)) return
    refusedSockets.add(socket)
    if (!socket.writable || error.code === "ECONNRESET") {
      socket.destroy()
      return
    }
    if (closedWithoutAnswer(socket, latestResponse(socket))) return
    writeRaw(
      socket,
      error.code === "HPE_HEADER_OVERFLOW"
        ? problems.headersTooLarge
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? { ...problems.badRequest("the request took too long to arrive"), status: 408 }
          : problems.badRequest("the request is not valid HTTP/1.1"),
      refusedHead(error)
    )
  })
}
