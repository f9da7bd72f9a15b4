import { type IncomingHttpHeaders, type OutgoingHttpHeaders, request } from "node:http"
import { connect } from "node:net"

/**
 * HTTP as a misbehaving client speaks it, for tests that must control what goes on the wire:
 * `fetch` normalises paths (`//` and `/a/../b`), refuses some headers and hides resets.
 */

export interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface Sent {
  readonly method: string
  /** The request target exactly as it goes on the request line. */
  readonly path: string
  readonly headers?: OutgoingHttpHeaders
  readonly body?: string | Buffer
}

const hostAndPort = (origin: string) => {
  const url = new URL(origin)
  return { host: url.hostname, port: Number(url.port) }
}

/**
 * One request on a connection of its own (no agent: nothing carries over from the previous
 * request), answered in full; rejects with the socket's error when there is no answer.
 */
export const send = (origin: string, sent: Sent): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = request({
      ...hostAndPort(origin),
      method: sent.method,
      path: sent.path,
      headers: sent.headers ?? {},
      agent: false
    })
    req.on("response", (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString("utf8")
        })
      )
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(sent.body)
  })

export interface Watched {
  /** The answer, once read in full; undefined when none came. */
  readonly answer: Answer | undefined
  /** Every error the client saw on the request or its socket, until the socket closed. */
  readonly errors: ReadonlyArray<string>
  /** Bytes of the body handed to the socket. */
  readonly written: number
}

/**
 * One request through Node's client whose body is `bodyBytes` of filler, written as fast as the
 * socket takes it; `Connection: close`. Chunked unless the headers declare a Content-Length.
 * Node's client stops writing once the whole answer has arrived (it then closes a connection
 * that is not kept alive), so `written` may fall short of `bodyBytes`. Settles when the socket
 * has closed, with every error seen on the way: a connection the server cut short shows up as
 * ECONNRESET or EPIPE.
 */
export const watch = (
  origin: string,
  options: {
    readonly method: string
    readonly path: string
    readonly headers?: OutgoingHttpHeaders
    readonly bodyBytes?: number
  }
): Promise<Watched> =>
  new Promise((resolve) => {
    const total = options.bodyBytes ?? 0
    const req = request({
      ...hostAndPort(origin),
      method: options.method,
      path: options.path,
      headers: { connection: "close", ...options.headers },
      agent: false
    })
    // The request and its socket both report a socket's error: each is kept once.
    const errors = new Set<string>()
    let answer: Answer | undefined
    let written = 0
    const piece = Buffer.alloc(64 * 1024, "x")
    const pump = () => {
      while (written < total) {
        const size = Math.min(piece.length, total - written)
        written += size
        if (!req.write(size === piece.length ? piece : piece.subarray(0, size))) {
          req.once("drain", pump)
          return
        }
      }
      req.end()
    }
    const describe = (error: NodeJS.ErrnoException) => `${error.code ?? "error"}: ${error.message}`
    req.on("error", (error) => errors.add(describe(error)))
    req.on("socket", (socket) => {
      socket.on("error", (error) => errors.add(describe(error)))
      socket.on("close", () => resolve({ answer, errors: [...errors], written }))
    })
    req.on("response", (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        answer = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString("utf8")
        }
      })
      res.on("error", (error) => errors.add(describe(error)))
    })
    pump()
  })

/**
 * A client that writes its whole request, `bodyBytes` of filler included, whatever the server
 * answers meanwhile, and reads until the server closes the connection (`Connection: close`).
 * Chunked unless `declareLength`. Settles when the socket has closed.
 */
export const uploadAll = (
  origin: string,
  options: {
    readonly path: string
    readonly contentType: string
    readonly bodyBytes: number
    readonly declareLength: boolean
  }
): Promise<Watched> =>
  new Promise((resolve) => {
    const { host, port } = hostAndPort(origin)
    const socket = connect(port, host)
    const errors = new Set<string>()
    const received: Array<Buffer> = []
    let written = 0
    const head = [
      `POST ${options.path} HTTP/1.1`,
      `host: ${host}:${port}`,
      `content-type: ${options.contentType}`,
      options.declareLength ? `content-length: ${options.bodyBytes}` : "transfer-encoding: chunked",
      "connection: close"
    ]
    socket.write(`${head.join("\r\n")}\r\n\r\n`)
    const piece = Buffer.alloc(64 * 1024, "x")
    const frame = (chunk: Buffer) =>
      options.declareLength
        ? chunk
        : Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")])
    const pump = () => {
      while (written < options.bodyBytes) {
        const size = Math.min(piece.length, options.bodyBytes - written)
        written += size
        if (!socket.write(frame(size === piece.length ? piece : piece.subarray(0, size)))) {
          socket.once("drain", pump)
          return
        }
      }
      socket.end(options.declareLength ? "" : "0\r\n\r\n")
    }
    socket.on("data", (chunk: Buffer) => received.push(chunk))
    socket.on("error", (error: NodeJS.ErrnoException) =>
      errors.add(`${error.code ?? "error"}: ${error.message}`)
    )
    socket.on("close", () => {
      const text = Buffer.concat(received).toString("utf8")
      const answer = text === "" ? undefined : parseAnswer(text)
      resolve({
        answer:
          answer === undefined
            ? undefined
            : { status: answer.status, headers: Object.fromEntries(answer.headers), body: answer.body },
        errors: [...errors],
        written
      })
    })
    pump()
  })

export interface Exchange {
  /** Everything the server sent, as Latin-1 (byte for byte). */
  readonly received: string
  /** How the connection ended: the server closed it, or it was reset. */
  readonly ending: "closed" | "reset"
}

/**
 * Writes raw bytes on a fresh connection and collects everything the server sends until it
 * closes the connection (or `giveUpMillis` pass, which fails the exchange).
 */
export const exchange = (origin: string, bytes: string | Buffer, giveUpMillis = 10_000): Promise<Exchange> =>
  new Promise((resolve, reject) => {
    const { host, port } = hostAndPort(origin)
    const socket = connect(port, host)
    const chunks: Array<Buffer> = []
    let ending: Exchange["ending"] = "closed"
    const timer = setTimeout(() => {
      socket.destroy()
      reject(
        new Error(
          `no end of the connection after ${giveUpMillis} ms: ${Buffer.concat(chunks).toString("latin1")}`
        )
      )
    }, giveUpMillis)
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNRESET" || error.code === "EPIPE") ending = "reset"
      else reject(error)
    })
    socket.on("close", () => {
      clearTimeout(timer)
      resolve({ received: Buffer.concat(chunks).toString("latin1"), ending })
    })
    socket.end(bytes)
  })

/** The body of a chunked message, decoded. */
const dechunk = (text: string): string => {
  let body = ""
  let at = 0
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at)
    if (lineEnd < 0) return body
    const size = Number.parseInt(text.slice(at, lineEnd), 16)
    if (!(size > 0)) return body
    body += text.slice(lineEnd + 2, lineEnd + 2 + size)
    at = lineEnd + 2 + size + 2
  }
}

/** The status, headers (lower-cased names) and body of the first answer in a raw exchange. */
export const parseAnswer = (
  received: string
): { readonly status: number; readonly headers: ReadonlyMap<string, string>; readonly body: string } => {
  const split = received.indexOf("\r\n\r\n")
  const head = (split < 0 ? received : received.slice(0, split)).split("\r\n")
  const status = Number(/^HTTP\/1\.[01] (\d{3}) /.exec(head[0] ?? "")?.[1] ?? "0")
  const headers = new Map<string, string>()
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":")
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
  }
  const rest = split < 0 ? "" : received.slice(split + 4)
  const length = headers.get("content-length")
  const body =
    headers.get("transfer-encoding") === "chunked"
      ? dechunk(rest)
      : length === undefined
        ? rest
        : rest.slice(0, Number(length))
  return { status, headers, body }
}
