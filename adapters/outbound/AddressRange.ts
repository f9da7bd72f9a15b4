import { isIP } from "node:net"
import ipaddr from "ipaddr.js"

/**
 * Which addresses an outbound call may reach. An allow-list: only ordinary public unicast
 * addresses pass, so loopback, RFC 1918, unique local, link-local, CGNAT, unspecified,
 * multicast, broadcast, documentation, benchmarking and reserved ranges are all refused, and so
 * is any range a later table adds. IPv4 ranges are ipaddr.js's; IPv6 must also lie in
 * 2000::/3, the only block IANA allocates for global unicast, which keeps out the deprecated
 * IPv4-compatible form (`::10.0.0.1`) and whatever else ipaddr.js does not name.
 *
 * Addresses that carry an IPv4 address are judged as follows:
 * - IPv4-mapped (`::ffff:10.0.0.1`): as the IPv4 address, since that is where a dual-stack
 *   socket connects;
 * - NAT64 with the well-known prefix (`64:ff9b::/96`, RFC 6052): as the IPv4 address in its
 *   last 32 bits, since that is where the translator sends it. A DNS64 resolver on an
 *   IPv6-only network answers such addresses for every IPv4-only host, so refusing them
 *   outright would cut those networks off from such providers;
 * - everything else that embeds one is refused whatever it embeds: local-use NAT64
 *   (`64:ff9b:1::/48`, where the operator picks where the IPv4 address sits), IPv4-translated
 *   (`::ffff:0:0/96`), 6to4 (`2002::/16`, relays deprecated by RFC 7526) and Teredo
 *   (`2001::/32`). No provider we call is reachable only that way.
 */

/**
 * Cloud instance metadata services, refused by address even where the range alone would let
 * one through (Azure's WireServer is a public address reachable only from inside Azure).
 */
const cloudMetadataAddresses: ReadonlySet<string> = new Set(
  [
    "169.254.169.254", // AWS, GCP, Azure, OCI, DigitalOcean, OpenStack
    "169.254.170.2", // AWS ECS task metadata
    "fd00:ec2::254", // AWS over IPv6
    "100.100.100.200", // Alibaba Cloud
    "168.63.129.16", // Azure WireServer
    "192.0.0.192" // Oracle Cloud, older instances
  ].map((address) => ipaddr.process(address).toString())
)

/**
 * Host names of metadata services, refused before any resolution: inside their cloud they
 * resolve to the addresses above, and a name is refused even if its answer ever changes.
 */
const cloudMetadataHosts: ReadonlySet<string> = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.tencentyun.com"
])

const globalUnicast = ipaddr.IPv6.parseCIDR("2000::/3")
const wellKnownNat64 = ipaddr.IPv6.parseCIDR("64:ff9b::/96")

/** The IPv4 address in the last 32 bits of an IPv6 address. */
const lastFourBytes = (address: ipaddr.IPv6): ipaddr.IPv4 => new ipaddr.IPv4(address.toByteArray().slice(12))

const rangeOfParsed = (parsed: ipaddr.IPv4 | ipaddr.IPv6): string => {
  if (cloudMetadataAddresses.has(parsed.toString())) return "cloudMetadata"
  if (parsed instanceof ipaddr.IPv4) return parsed.range()
  if (parsed.match(wellKnownNat64)) {
    const embedded = rangeOfParsed(lastFourBytes(parsed))
    return embedded === "unicast" ? "unicast" : `nat64-${embedded}`
  }
  const range = parsed.range()
  return range === "unicast" && !parsed.match(globalUnicast) ? "reserved" : range
}

/**
 * The range `address` falls in: `unicast` for an ordinary public address, otherwise the name
 * of the special range (`loopback`, `private`, `linkLocal`, `carrierGradeNat`, `uniqueLocal`,
 * `multicast`, `cloudMetadata`, `6to4`, `teredo`, …), `invalid` for anything that is not an
 * address as Node connects to one (`0x7f.1` and other legacy spellings included).
 */
export const rangeOf = (address: string): string => {
  if (isIP(address) === 0) return "invalid"
  return rangeOfParsed(ipaddr.process(address))
}

/** Whether an outbound call may connect to `address`. */
export const isPublic = (address: string): boolean => rangeOf(address) === "unicast"

export const isLoopback = (address: string): boolean => rangeOf(address) === "loopback"

/** Whether `hostname` names a cloud metadata service (case and a final dot ignored). */
export const isCloudMetadataHost = (hostname: string): boolean =>
  cloudMetadataHosts.has(hostname.toLowerCase().replace(/\.$/, ""))
