import type { IncomingMessage, ServerResponse } from "node:http"
import { lingeringClose } from "./Connection.js"
import type { HttpResponse } from "./HttpMessage.js"

/**
 * Bytes of a refused body read and thrown away so that the 413 reaches the client. Past this,
 * the connection closes after a short linger (Connection.ts).
 */
const discardLimit = 16 * 1024 * 1024

/**
 * Reads a request's body within `limit` bytes, as UTF-8; `undefined` as soon as it exceeds it
 * (by its declared length or while it arrives), the rest still unread (`refuse` discards it).
 */
export const read = (req: IncomingMessage, limit: number, done: (body: string | undefined) => void) => {
  req.on("error", () => {})
  const declared = req.headers["content-length"]
  if (declared !== undefined && Number(declared) > limit) return done(undefined)
  const chunks: Array<Buffer> = []
  let size = 0
  const take = (chunk: Buffer) => {
    size += chunk.length
    if (size > limit) {
      req.removeListener("data", take)
      chunks.length = 0
      done(undefined)
    } else chunks.push(chunk)
  }
  req.on("data", take)
  req.on("end", () => {
    if (size <= limit) done(size === 0 ? "" : Buffer.concat(chunks, size).toString("utf8"))
  })
}

/**
 * Answers a body over the limit (the 413). The answer goes out at once, but the response ends
 * only when the rest of the body has been read and thrown away: Node closes a
 * `Connection: close` connection as soon as its response ends, and a socket closed with data
 * still arriving answers that data with a reset, which the client may see instead of the 413 or
 * as a failed upload.
 */
export const refuse = (req: IncomingMessage, res: ServerResponse, response: HttpResponse) => {
  const body = response.body ?? ""
  res.writeHead(response.status, { ...response.headers, "content-length": String(Buffer.byteLength(body)) })
  res.write(body)
  let discarded = 0
  const discard = (chunk: Buffer) => {
    discarded += chunk.length
    // The response stays open: ended, it would let Node close the connection at once.
    if (discarded > discardLimit) {
      req.removeListener("data", discard)
      lingeringClose(req.socket)
    }
  }
  req.on("data", discard)
  req.on("end", () => res.end())
}
