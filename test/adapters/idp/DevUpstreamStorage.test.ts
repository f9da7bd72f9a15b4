import { describe, expect, it } from "@effect/vitest"
import * as DevUpstreamStorage from "../../../adapters/idp/DevUpstreamStorage.js"

describe("DevUpstreamStorage", () => {
  it("keeps at most maxEntries, dropping the oldest written", async () => {
    const sessions = DevUpstreamStorage.make()("Session")
    const limit = DevUpstreamStorage.maxEntries
    for (let n = 0; n <= limit; n++) await sessions.upsert(String(n), { uid: String(n) }, 3600)
    // Reading the oldest does not save it: eviction goes by writes.
    expect(await sessions.find("1")).toBeDefined()
    await sessions.upsert("last", { uid: "last" }, 3600)
    expect(await sessions.find("0")).toBeUndefined()
    expect(await sessions.find("1")).toBeUndefined()
    const held = []
    for (let n = 2; n <= limit; n++) held.push(await sessions.find(String(n)))
    expect(held.filter((payload) => payload !== undefined)).toHaveLength(limit - 1)
    expect(await sessions.find("last")).toEqual({ uid: "last" })
  })
})
