import { createServer } from "node:net"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export class ListenError extends Schema.TaggedError<ListenError>()("ListenError", {
  message: Schema.String
}) {}

/** Where a service listens, and the variables an operator changes to move it. */
export interface Address {
  /** The service, as log lines name it. */
  readonly service: string
  readonly host: string
  readonly port: number
  /** The variables that set the port, as the operator reads them (`PORT`). */
  readonly variables?: string | undefined
}

const codeOf = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined

const reasons: Readonly<Record<string, string>> = {
  EADDRINUSE: "address in use",
  EACCES: "permission denied",
  EADDRNOTAVAIL: "no such address on this machine"
}

/**
 * Why `address` cannot be listened on, in one line that names the service and the variables
 * that move it: "auth: cannot listen on 0.0.0.0:8081 (AUTHSVC_API_PORT, else PORT): address in
 * use".
 */
export const failure = (address: Address, cause: unknown): ListenError => {
  const code = codeOf(cause)
  const reason =
    (code === undefined ? undefined : reasons[code]) ??
    (cause instanceof Error ? cause.message : String(cause))
  return new ListenError({
    message: `${address.service}: cannot listen on ${address.host}:${address.port}${
      address.variables === undefined ? "" : ` (${address.variables})`
    }: ${reason}`
  })
}

/**
 * Fails when `address` cannot be listened on, by binding it a moment and letting it go: a
 * service checks its port before its slow start-up work (migrations, the embedded database), so
 * that a port taken is told at once. Port 0 (any free port) always works.
 */
export const ensureFree = (address: Address): Effect.Effect<void, ListenError> =>
  address.port === 0
    ? Effect.void
    : Effect.async<void, ListenError>((resume) => {
        const probe = createServer()
        probe.once("error", (cause) => resume(Effect.fail(failure(address, cause))))
        probe.listen({ port: address.port, host: address.host, exclusive: true }, () =>
          probe.close(() => resume(Effect.void))
        )
      })
