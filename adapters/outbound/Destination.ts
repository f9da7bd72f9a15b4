import { type LookupAddress, lookup } from "node:dns"
import { isIP } from "node:net"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AddressRange from "./AddressRange.js"
import { DestinationRefused, DestinationUnreachable } from "./OutboundFailure.js"
import * as PrivateAddresses from "./PrivateAddresses.js"

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
   * The operator's private addresses (`PrivateAddresses`): the only ones reached besides public
   * unicast, and the only ones reached over plain http.
   */
  readonly allowedPrivateAddresses: PrivateAddresses.AllowList
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

/** Why the guard will not connect to one address for a URL; see `refusalOf`. */
export interface Refusal {
  readonly address: string
  readonly range: string
  /** Whether the operator's list could let the address through (not metadata, not invalid). */
  readonly listable: boolean
}

/**
 * Why the guard may not connect to `address` for a URL of `protocol`; none when it may. Public
 * unicast over https; a listed private address over https or plain http; nothing else, and
 * never a cloud metadata address, whichever range holds it.
 */
export const refusalOf = (
  protocol: string,
  address: string,
  list: PrivateAddresses.AllowList
): Option.Option<Refusal> => {
  const range = AddressRange.rangeOf(address)
  if (range === "invalid" || range === "cloudMetadata" || range === "nat64-cloudMetadata") {
    return Option.some({ address, range, listable: false })
  }
  if (range === "unicast") {
    return protocol === "https:" ? Option.none() : Option.some({ address, range, listable: false })
  }
  return PrivateAddresses.includes(list, address)
    ? Option.none()
    : Option.some({ address, range, listable: true })
}

/**
 * The refusal of `host` for `refusal`, naming the setting that would lift it where one could
 * (a list read from a variable knows its name).
 */
export const refusalMessage = (url: URL, refusal: Refusal, list: PrivateAddresses.AllowList): string => {
  const host = url.hostname
  if (url.protocol !== "https:") {
    return `${host} resolves to a ${refusal.range} address; plain http goes only to private addresses ${
      list.variable === undefined ? "the operator lists" : `${list.variable} lists`
    }`
  }
  return refusal.listable && list.variable !== undefined
    ? `${host} resolves to a ${refusal.range} address, which is not contacted unless ${list.variable} lists it`
    : `${host} resolves to a ${refusal.range} address, which is not contacted`
}

/**
 * The scheme's refusal, made before any resolution: plain http is refused here when no private
 * address is allowed, since it could go nowhere.
 */
export const schemeRefusal = (url: URL, list: PrivateAddresses.AllowList): Option.Option<string> => {
  const httpAllowed = !PrivateAddresses.isEmpty(list)
  if (url.protocol === "https:" || (url.protocol === "http:" && httpAllowed)) return Option.none()
  if (list.variable === undefined) return Option.some("only https destinations are contacted")
  return Option.some(
    httpAllowed
      ? `only https destinations are contacted, and plain http ones at private addresses ${list.variable} lists`
      : `only https destinations are contacted: plain http goes only to private addresses ${list.variable} lists, and it lists none`
  )
}

/** The refusals no list lifts, made before any resolution: user information, metadata names. */
export const hostRefusal = (url: URL): Option.Option<string> => {
  const host = url.hostname
  if (url.username !== "" || url.password !== "") {
    return Option.some("the URL must not carry user information")
  }
  if (AddressRange.isCloudMetadataHost(host)) {
    return Option.some(`${host} is a cloud metadata service, which is never contacted`)
  }
  return Option.none()
}

/** The checks made before any resolution: scheme, user information, metadata host names. */
export const screen = (url: URL, list: PrivateAddresses.AllowList): Option.Option<string> =>
  Option.orElse(schemeRefusal(url, list), () => hostRefusal(url))

/** The host as DNS wants it: an IPv6 literal without its brackets. */
export const hostnameOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1")

/** The checked destination of `url`, or why it may not be contacted. */
export const check = (
  url: URL,
  policy: Policy
): Effect.Effect<Destination, DestinationRefused | DestinationUnreachable> =>
  Effect.gen(function* () {
    const host = url.hostname
    const list = policy.allowedPrivateAddresses
    const refuse = (message: string) => new DestinationRefused({ host, message })
    const screened = screen(url, list)
    if (Option.isSome(screened)) return yield* refuse(screened.value)
    const hostname = hostnameOf(url)
    // A literal address is judged as it is: there is nothing to resolve.
    const addresses = isIP(hostname) === 0 ? yield* policy.resolve(hostname) : [hostname]
    // Every address must pass, not just the one a connection would pick: a name with one
    // public and one private address is refused outright rather than trusted to the order of
    // the answers.
    for (const address of addresses) {
      const refusal = refusalOf(url.protocol, address, list)
      if (Option.isSome(refusal)) return yield* refuse(refusalMessage(url, refusal.value, list))
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
