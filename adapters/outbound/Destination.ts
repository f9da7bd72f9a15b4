import { type LookupAddress, lookup } from "node:dns"
import { isIP } from "node:net"
import * as Effect from "effect/Effect"
import * as AddressRange from "./AddressRange.js"
import { DestinationRefused, DestinationUnreachable } from "./OutboundFailure.js"

/**
 * Where one hop of an outbound call may go, decided before any connection: the URL's scheme
 * and user information, its host name, and every address the name resolves to. What passes is
 * a `Destination` holding those very addresses, which the connection is then pinned to
 * (`PinnedLookup`): a DNS answer that changes between this check and the connect (rebinding)
 * is never asked for.
 */

/**
 * A host name's addresses, as Node connects to them. Tests inject their own, so that a name
 * can resolve to any address without real DNS; the system's is `systemResolver`.
 */
export type Resolver = (hostname: string) => Effect.Effect<ReadonlyArray<string>, DestinationUnreachable>

/** The operating system's resolver (getaddrinfo, as `net.connect` itself would use). */
export const systemResolver: Resolver = (hostname) =>
  Effect.async((resume) => {
    lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      resume(
        error === null
          ? Effect.succeed(addresses.map((entry) => entry.address))
          : Effect.fail(
              new DestinationUnreachable({
                host: hostname,
                ...(error.code === undefined ? {} : { code: error.code }),
                message: `cannot resolve ${hostname}: ${error.code ?? error.message}`
              })
            )
      )
    })
  })

export interface Policy {
  /**
   * Tests only: `host:port` pairs, as the URL writes them (`127.0.0.1:8443`, `[::1]:8443`,
   * `localhost:9000`), whose host may be a loopback address, over https or plain http. No
   * other range can be opened, and no configuration read from the environment sets this.
   */
  readonly allowedLoopback: ReadonlySet<string>
  readonly resolve: Resolver
}

export interface Destination {
  readonly url: URL
  /** The host as DNS, TLS and `http.request` want it: an IPv6 literal without its brackets. */
  readonly hostname: string
  readonly port: number
  /** Every address the host resolved to, each of them checked; the only ones connected to. */
  readonly addresses: ReadonlyArray<LookupAddress>
}

const defaultPort = (url: URL): number => (url.protocol === "http:" ? 80 : 443)

/** `host:port` as the allow-list writes it, with the default port made explicit. */
export const hostPort = (url: URL): string =>
  `${url.hostname}:${url.port === "" ? defaultPort(url) : url.port}`

/** Whether the guard may connect to `address` for `url`. */
const permits = (url: URL, exempt: boolean, range: string): boolean =>
  url.protocol === "https:"
    ? range === "unicast" || (exempt && range === "loopback")
    : exempt && range === "loopback"

/** The checked destination of `url`, or why it may not be contacted. */
export const check = (
  url: URL,
  policy: Policy
): Effect.Effect<Destination, DestinationRefused | DestinationUnreachable> =>
  Effect.gen(function* () {
    const host = url.hostname
    const refuse = (message: string) => new DestinationRefused({ host, message })
    const exempt = policy.allowedLoopback.has(hostPort(url))
    if (url.protocol !== "https:" && !(url.protocol === "http:" && exempt)) {
      return yield* refuse("only https destinations are contacted")
    }
    if (url.username !== "" || url.password !== "") {
      return yield* refuse("the URL must not carry user information")
    }
    if (AddressRange.isCloudMetadataHost(host)) {
      return yield* refuse(`${host} is a cloud metadata service, which is never contacted`)
    }
    const hostname = host.replace(/^\[(.*)\]$/, "$1")
    // A literal address is judged as it is: there is nothing to resolve.
    const addresses = isIP(hostname) === 0 ? yield* policy.resolve(hostname) : [hostname]
    // Every address must pass, not just the one a connection would pick: a name with one
    // public and one private address is refused outright rather than trusted to the order of
    // the answers.
    for (const address of addresses) {
      const range = AddressRange.rangeOf(address)
      if (!permits(url, exempt, range)) {
        return yield* refuse(
          url.protocol === "https:"
            ? `${host} resolves to a ${range} address, which is not contacted`
            : `${host} resolves to a ${range} address; plain http goes to allowed loopback addresses only`
        )
      }
    }
    if (addresses.length === 0) {
      return yield* new DestinationUnreachable({ host, message: `${host} has no address` })
    }
    return {
      url,
      hostname,
      port: url.port === "" ? defaultPort(url) : Number(url.port),
      addresses: addresses.map((address) => ({ address, family: isIP(address) }))
    }
  })
