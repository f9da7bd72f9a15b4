import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import * as PrivateAddresses from "../../../adapters/outbound/PrivateAddresses.js"

const parsed = (...entries: ReadonlyArray<string>) =>
  PrivateAddresses.parse(entries, "OUTBOUND_ALLOWED_PRIVATE_ADDRESSES")

describe("PrivateAddresses.parse", () => {
  it("reads IPv4 and IPv6 addresses and CIDR ranges, in normal form, each once", () => {
    const list = Either.getOrThrow(
      parsed(
        "10.0.0.0/8",
        "192.168.1.20",
        "fd00::/8",
        "::1",
        "10.1.2.3/8",
        "::ffff:172.16.0.0/108",
        "0.0.0.0/0"
      )
    )
    expect(list.ranges).toEqual([
      "10.0.0.0/8",
      "192.168.1.20/32",
      "fd00::/8",
      "::1/128",
      "172.16.0.0/12",
      "0.0.0.0/0"
    ])
    expect(list.variable).toBe("OUTBOUND_ALLOWED_PRIVATE_ADDRESSES")
    expect(PrivateAddresses.isEmpty(Either.getOrThrow(parsed()))).toBe(true)
  })

  it("refuses what is not an address or a range, naming the entry and what is expected", () => {
    const expected =
      "expected comma-separated IP addresses and CIDR ranges, e.g. 10.0.0.0/8,fd00::/8,127.0.0.1"
    for (const [entry, message] of [
      ["keycloak.internal", `${expected}: keycloak.internal is neither`],
      ["localhost", `${expected}: localhost is neither`],
      ["0x7f.1", `${expected}: 0x7f.1 is neither`],
      ["127.1", `${expected}: 127.1 is neither`],
      ["10.0.0.0/33", `${expected}: 10.0.0.0/33 has no prefix length of 0 to 32`],
      ["fd00::/129", `${expected}: fd00::/129 has no prefix length of 0 to 128`],
      ["10.0.0.0/", `${expected}: 10.0.0.0/ has no prefix length of 0 to 32`],
      ["10.0.0.0/8/8", `${expected}: 10.0.0.0/8/8 has no prefix length of 0 to 32`],
      ["[::1]", `${expected}: [::1] is neither`],
      ["169.254.169.254", "169.254.169.254 is a cloud metadata address, which is never contacted"],
      ["fd00:ec2::254/128", "fd00:ec2::254/128 is a cloud metadata address, which is never contacted"]
    ] as const) {
      expect(parsed("10.0.0.0/8", entry), entry).toEqual(Either.left(message))
    }
  })
})

describe("PrivateAddresses.includes", () => {
  const list = Either.getOrThrow(parsed("10.0.0.0/8", "fd00::/8", "127.0.0.1"))

  it("takes addresses in a listed range, an IPv4-mapped one as its IPv4 address", () => {
    for (const address of [
      "10.0.0.1",
      "10.255.255.255",
      "fd12::1",
      "127.0.0.1",
      "::ffff:10.1.2.3",
      "::ffff:7f00:1"
    ]) {
      expect(PrivateAddresses.includes(list, address), address).toBe(true)
    }
  })

  it("leaves out the rest, a NAT64 address carrying a listed one among them", () => {
    for (const address of [
      "11.0.0.1",
      "127.0.0.2",
      "::1",
      "fe80::1",
      "64:ff9b::a00:1",
      "::ffff:127.0.0.2",
      "not"
    ]) {
      expect(PrivateAddresses.includes(list, address), address).toBe(false)
    }
    expect(PrivateAddresses.includes(PrivateAddresses.none, "10.0.0.1")).toBe(false)
  })

  it("adds one address to a list, keeping where the list was read from", () => {
    const widened = PrivateAddresses.including(list, "127.0.0.2")
    expect(PrivateAddresses.includes(widened, "127.0.0.2")).toBe(true)
    expect(widened.variable).toBe("OUTBOUND_ALLOWED_PRIVATE_ADDRESSES")
    expect(
      PrivateAddresses.includes(PrivateAddresses.including(PrivateAddresses.none, "127.0.0.1"), "127.0.0.1")
    ).toBe(true)
  })
})
