/**
 * Addresses by what the outbound guard makes of them: every class it refuses, with one or more
 * examples of each and the range name it reports, and ordinary public addresses it allows.
 */

/** Every class of address the guard refuses, with an example or more of each. */
export const refused: ReadonlyArray<readonly [string, string]> = [
  ["loopback", "127.0.0.1"],
  ["loopback", "127.8.9.10"],
  ["loopback", "::1"],
  ["private", "10.0.0.1"],
  ["private", "172.16.5.4"],
  ["private", "172.31.255.255"],
  ["private", "192.168.1.1"],
  ["linkLocal", "169.254.1.1"],
  ["linkLocal", "fe80::1"],
  ["carrierGradeNat", "100.64.0.1"],
  ["carrierGradeNat", "100.127.255.254"],
  ["multicast", "224.0.0.1"],
  ["multicast", "239.255.255.250"],
  ["multicast", "ff02::1"],
  ["unspecified", "0.0.0.0"],
  ["unspecified", "0.1.2.3"],
  ["unspecified", "::"],
  ["broadcast", "255.255.255.255"],
  ["reserved", "240.0.0.1"],
  ["reserved", "192.0.2.1"],
  ["reserved", "198.18.0.1"],
  ["reserved", "2001:db8::1"],
  ["uniqueLocal", "fc00::1"],
  ["uniqueLocal", "fd12:3456::1"],
  ["cloudMetadata", "169.254.169.254"],
  ["cloudMetadata", "169.254.170.2"],
  ["cloudMetadata", "fd00:ec2::254"],
  ["cloudMetadata", "100.100.100.200"],
  ["cloudMetadata", "168.63.129.16"],
  ["cloudMetadata", "192.0.0.192"],
  // IPv4-mapped: judged as the IPv4 address it carries.
  ["private", "::ffff:10.0.0.1"],
  ["loopback", "::ffff:127.0.0.1"],
  ["cloudMetadata", "::ffff:169.254.169.254"],
  ["loopback", "::ffff:7f00:1"],
  // NAT64 (well-known prefix): judged as the IPv4 address in its last 32 bits.
  ["nat64-private", "64:ff9b::a00:1"],
  ["nat64-loopback", "64:ff9b::7f00:1"],
  ["nat64-cloudMetadata", "64:ff9b::a9fe:a9fe"],
  // Other forms that embed an IPv4 address: refused whatever they embed.
  ["rfc6052", "64:ff9b:1::808:808"],
  ["6to4", "2002:a00:1::1"],
  ["6to4", "2002:808:808::1"],
  ["teredo", "2001:0:4136:e378:8000:63bf:3fff:fdd2"],
  ["rfc6145", "::ffff:0:a00:1"],
  ["reserved", "::a00:1"],
  ["reserved", "::808:808"],
  // Outside 2000::/3 and not named by ipaddr.js, or deprecated.
  ["discard", "100::1"],
  ["deprecatedSiteLocal", "fec0::1"],
  // Not an address as Node connects to one.
  ["invalid", "0x7f.1"],
  ["invalid", "2130706433"],
  ["invalid", "not an address"],
  ["invalid", ""]
]

export const allowed: ReadonlyArray<string> = [
  "93.184.215.14",
  "8.8.8.8",
  "1.1.1.1",
  "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
  "2606:4700::1111",
  "::ffff:8.8.8.8",
  "64:ff9b::808:808"
]
