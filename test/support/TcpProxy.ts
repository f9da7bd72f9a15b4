import { connect, createServer, type Socket } from "node:net"
import * as Tls from "node:tls"
import * as Effect from "effect/Effect"

/**
 * A TCP proxy on loopback in front of another address, for tests that take a dependency away
 * and bring it back: `stop` closes the listening socket and destroys every connection through
 * it, as a crashed or restarting server would; `start` listens again on the same port.
 * `freeze` keeps every connection open and accepts new ones but passes nothing on, as a server
 * that hangs would; `thaw` lets everything through again, what was held back included.
 */
export interface TcpProxy {
  readonly port: number
  readonly stop: Effect.Effect<void>
  readonly start: Effect.Effect<void>
  readonly freeze: Effect.Effect<void>
  readonly thaw: Effect.Effect<void>
}

export const make = (
  target: { readonly host: string; readonly port: number },
  options: { readonly tls?: { readonly key: string; readonly cert: string } } = {}
) =>
  Effect.gen(function* () {
    const sockets = new Set<Socket>()
    const track = (socket: Socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      // A peer that vanishes is what this proxy is for; its errors are not the test's.
      socket.on("error", () => {})
    }
    let frozen = false
    const pairs = new Set<{ readonly client: Socket; readonly upstream: Socket }>()
    const serve = (client: Socket) => {
      track(client)
      const upstream = connect(target.port, target.host)
      track(upstream)
      client.pipe(upstream)
      upstream.pipe(client)
      // Paused sockets hold their data (the kernel's buffers fill, the sender waits); after
      // pipe, which starts the flow.
      if (frozen) {
        client.pause()
        upstream.pause()
      }
      const pair = { client, upstream }
      pairs.add(pair)
      client.on("close", () => {
        pairs.delete(pair)
        upstream.destroy()
      })
      upstream.on("close", () => client.destroy())
    }
    const server = options.tls === undefined ? createServer(serve) : Tls.createServer(options.tls, serve)
    const listen = (port: number) =>
      Effect.async<number>((resume) => {
        server.listen(port, "127.0.0.1", () => {
          const address = server.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : port))
        })
      })
    const stop = Effect.async<void>((resume) => {
      if (!server.listening) return resume(Effect.void)
      server.close(() => resume(Effect.void))
      for (const socket of sockets) socket.destroy()
    })
    const each = (act: (socket: Socket) => void) =>
      Effect.sync(() => {
        for (const { client, upstream } of pairs) {
          act(client)
          act(upstream)
        }
      })
    const freeze = Effect.zipRight(
      Effect.sync(() => {
        frozen = true
      }),
      each((socket) => socket.pause())
    )
    const thaw = Effect.zipRight(
      Effect.sync(() => {
        frozen = false
      }),
      each((socket) => socket.resume())
    )
    const port = yield* Effect.acquireRelease(listen(0), () => stop)
    return { port, stop, start: Effect.asVoid(listen(port)), freeze, thaw } satisfies TcpProxy
  })
