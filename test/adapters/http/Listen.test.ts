import { createServer, type Server } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Listen from "../../../adapters/http/Listen.js"

/** A loopback port someone else listens on, until the scope closes. */
const taken = Effect.acquireRelease(
  Effect.async<{ readonly server: Server; readonly port: number }>((resume) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resume(
        Effect.succeed({ server, port: typeof address === "object" && address !== null ? address.port : 0 })
      )
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

describe("Listen.ensureFree", () => {
  it.scoped("names the service, the address and the variables of a port someone else has", () =>
    Effect.gen(function* () {
      const { port } = yield* taken
      const error = yield* Effect.flip(
        Listen.ensureFree({
          service: "auth",
          host: "127.0.0.1",
          port,
          variables: "AUTHSVC_API_PORT, else PORT"
        })
      )
      expect(error.message).toBe(
        `auth: cannot listen on 127.0.0.1:${port} (AUTHSVC_API_PORT, else PORT): address in use`
      )
    })
  )

  it.scoped("lets a free port go again, so that the service can take it", () =>
    Effect.gen(function* () {
      const { port, server } = yield* taken
      yield* Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
      yield* Listen.ensureFree({ service: "oauth", host: "127.0.0.1", port, variables: "PORT" })
      // Free still: the check holds nothing.
      yield* Listen.ensureFree({ service: "oauth", host: "127.0.0.1", port, variables: "PORT" })
      yield* Listen.ensureFree({ service: "oauth", host: "127.0.0.1", port: 0, variables: "PORT" })
    })
  )

  it("says why in words for an address this machine does not have, and without variables when none are known", () => {
    const missing = Object.assign(new Error("listen EADDRNOTAVAIL: address not available 192.0.2.1:8080"), {
      code: "EADDRNOTAVAIL"
    })
    expect(Listen.failure({ service: "oauth", host: "192.0.2.1", port: 8080 }, missing).message).toBe(
      "oauth: cannot listen on 192.0.2.1:8080: no such address on this machine"
    )
    expect(
      Listen.failure({ service: "oauth", host: "h", port: 1, variables: "PORT" }, new Error("odd")).message
    ).toBe("oauth: cannot listen on h:1 (PORT): odd")
  })
})
