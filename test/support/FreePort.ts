import { createServer } from "node:net"
import * as Effect from "effect/Effect"

/**
 * A loopback port nobody listens on: bound once, then released. For servers whose address must
 * be known before they start (BASE_URL is the issuer), and for addresses that must refuse.
 */
export const freePort: Effect.Effect<number> = Effect.async<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})
