import { isIP } from "node:net"
import * as Either from "effect/Either"
import ipaddr from "ipaddr.js"
import * as AddressRange from "./AddressRange.js"

/**
 * The operator's exception to the guard's rule of public addresses only: IP addresses and CIDR
 * ranges (IPv4 and IPv6) whose addresses outbound calls may reach, over https or plain http, as
 * Mastodon's `ALLOWED_PRIVATE_ADDRESSES`. It is what lets a service use an identity provider,
 * its keys, templates or a gateway inside its own network (a Keycloak in the same cluster).
 * It lifts the refusal of an address for its range only: cloud metadata addresses and names
 * stay refused whatever it says, and a public address is reached over https only.
 *
 * An IPv4-mapped address (`::ffff:10.0.0.1`) is judged as the IPv4 address it carries, since
 * that is where a dual-stack socket connects, and an entry written as IPv4-mapped
 * (`::ffff:10.0.0.0/104`) is taken as the IPv4 range it maps. A NAT64 address
 * (`64:ff9b::a00:1`) is not: it goes to a translator, which is not the listed host, so only a
 * listed IPv6 range takes it.
 */

interface Range {
  readonly network: ipaddr.IPv4 | ipaddr.IPv6
  readonly prefix: number
}

export interface AllowList {
  /** Each range in normal form (`10.0.0.0/8`, `::1/128`), as the start-up log lists them. */
  readonly ranges: ReadonlyArray<string>
  readonly parsed: ReadonlyArray<Range>
  /**
   * The setting the list is read from (`OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`), named by a
   * refusal the list could lift, so that the operator learns what to set. None: set in code.
   */
  readonly variable: string | undefined
}

/** No exception: public addresses only, over https only. */
export const none: AllowList = { ranges: [], parsed: [], variable: undefined }

export const isEmpty = (list: AllowList): boolean => list.parsed.length === 0

/** The prefix is digits only, and no longer than the address has bits. */
const prefixOf = (text: string, bits: number): number | undefined =>
  /^\d{1,3}$/.test(text) && Number(text) <= bits ? Number(text) : undefined

const expected = "expected comma-separated IP addresses and CIDR ranges, e.g. 10.0.0.0/8,fd00::/8,127.0.0.1"

/** One entry: an address (a range of one) or `address/prefix`; the network's own address kept. */
const parseEntry = (entry: string): Either.Either<Range, string> => {
  const slash = entry.indexOf("/")
  const address = slash === -1 ? entry : entry.slice(0, slash)
  // Node's own reading of an address: no legacy spellings (`0x7f.1`, `127.1`) that a reader
  // of the list would take for something else.
  const family = isIP(address)
  if (family === 0 || address.includes("%")) return Either.left(`${expected}: ${entry} is neither`)
  const bits = family === 4 ? 32 : 128
  const prefix = slash === -1 ? bits : prefixOf(entry.slice(slash + 1), bits)
  if (prefix === undefined) return Either.left(`${expected}: ${entry} has no prefix length of 0 to ${bits}`)
  if (prefix === bits && AddressRange.rangeOf(address) === "cloudMetadata") {
    return Either.left(`${entry} is a cloud metadata address, which is never contacted`)
  }
  const parsed = ipaddr.parse(address)
  const mapped = parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress() && prefix >= 96
  const network = mapped ? parsed.toIPv4Address() : parsed
  const length = mapped ? prefix - 96 : prefix
  const text = `${network.toString()}/${length}`
  return Either.right({
    network:
      network instanceof ipaddr.IPv4
        ? ipaddr.IPv4.networkAddressFromCIDR(text)
        : ipaddr.IPv6.networkAddressFromCIDR(text),
    prefix: length
  })
}

/**
 * The list of `entries` (already split on commas and trimmed), or why one is not an address or a
 * range; `variable` is where they were read.
 */
export const parse = (entries: ReadonlyArray<string>, variable?: string): Either.Either<AllowList, string> =>
  Either.map(Either.all(entries.map(parseEntry)), (parsed) => {
    const unique = new Map(parsed.map((range) => [`${range.network.toString()}/${range.prefix}`, range]))
    return { ranges: [...unique.keys()], parsed: [...unique.values()], variable }
  })

/** `list` with the single address `address` added: a server this process starts on loopback. */
export const including = (list: AllowList, address: string): AllowList => {
  const added = parse([address])
  return Either.isLeft(added)
    ? list
    : {
        ranges: [...new Set([...list.ranges, ...added.right.ranges])],
        parsed: [...list.parsed, ...added.right.parsed],
        variable: list.variable
      }
}

const within = (address: ipaddr.IPv4 | ipaddr.IPv6, range: Range): boolean =>
  address instanceof ipaddr.IPv4
    ? range.network instanceof ipaddr.IPv4 && address.match(range.network, range.prefix)
    : range.network instanceof ipaddr.IPv6 && address.match(range.network, range.prefix)

/**
 * Whether `address` lies in a range of `list`, an IPv4-mapped one as the IPv4 address it
 * carries. Says nothing of whether the guard calls it: a cloud metadata address in a listed
 * range is still refused (`Destination`).
 */
export const includes = (list: AllowList, address: string): boolean => {
  if (list.parsed.length === 0 || isIP(address) === 0) return false
  const processed = ipaddr.process(address)
  return list.parsed.some((range) => within(processed, range))
}
