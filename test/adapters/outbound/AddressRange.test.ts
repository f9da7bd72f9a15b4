import { describe, expect, it } from "@effect/vitest"
import * as AddressRange from "../../../adapters/outbound/AddressRange.js"
import { allowed, refused } from "../../support/outbound/Addresses.js"

describe("AddressRange", () => {
  it.each(refused)("refuses %s: %s", (range, address) => {
    expect(AddressRange.rangeOf(address)).toBe(range)
    expect(AddressRange.isPublic(address)).toBe(false)
  })

  it.each(allowed)("allows %s", (address) => {
    expect(AddressRange.rangeOf(address)).toBe("unicast")
    expect(AddressRange.isPublic(address)).toBe(true)
  })

  it.each([
    ["metadata.google.internal", true],
    ["METADATA.Google.Internal.", true],
    ["metadata.goog", true],
    ["metadata", true],
    ["instance-data", true],
    ["instance-data.ec2.internal", true],
    ["metadata.google.internal.example.com", false],
    ["example.com", false]
  ] as const)("cloud metadata host %s → %s", (host, expected) => {
    expect(AddressRange.isCloudMetadataHost(host)).toBe(expected)
  })
})
