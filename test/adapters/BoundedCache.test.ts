import { describe, expect, it } from "@effect/vitest"
import * as BoundedCache from "../../adapters/BoundedCache.js"

const filled = (count: number, options: BoundedCache.Options<string>) => {
  const cache = BoundedCache.make<number, string>(options)
  for (let key = 0; key < count; key++) cache.set(key, `value ${key}`)
  return cache
}

describe("BoundedCache", () => {
  it("keeps at most maxEntries, dropping the least recently used", () => {
    const cache = filled(3, { maxEntries: 3 })
    // Read 0, so 1 becomes the least recently used.
    expect(cache.get(0)).toBe("value 0")
    cache.set(3, "value 3")
    cache.set(4, "value 4")
    expect(cache.size).toBe(3)
    expect([...cache].map(([key]) => key)).toEqual([0, 3, 4])
    expect(cache.get(1)).toBeUndefined()
    expect(cache.get(2)).toBeUndefined()
  })

  it("drops the oldest written first when it is only peeked at", () => {
    const cache = filled(3, { maxEntries: 3 })
    expect(cache.peek(0)).toBe("value 0")
    cache.set(3, "value 3")
    expect(cache.size).toBe(3)
    expect(cache.peek(0)).toBeUndefined()
    expect(cache.oldest()).toBe(1)
  })

  it("stays at its limit under far more keys than it holds", () => {
    const cache = filled(10_000, { maxEntries: 100 })
    expect(cache.size).toBe(100)
    expect(cache.oldest()).toBe(9_900)
    expect(cache.peek(9_899)).toBeUndefined()
  })

  it("keeps the total weight within maxWeight, dropping the least recently used", () => {
    const cache = BoundedCache.make<string, string>({
      maxEntries: 100,
      maxWeight: 10,
      weigh: (value) => value.length
    })
    cache.set("a", "aaaa")
    cache.set("b", "bbbb")
    expect(cache.weight).toBe(8)
    cache.set("c", "cccc")
    expect(cache.weight).toBe(8)
    expect(cache.size).toBe(2)
    expect(cache.peek("a")).toBeUndefined()
  })

  it("does not store a value heavier than maxWeight on its own, and keeps the rest", () => {
    const cache = BoundedCache.make<string, string>({ maxEntries: 100, maxWeight: 4, weigh: (v) => v.length })
    cache.set("a", "aa")
    expect(cache.set("b", "bbbbb")).toBe(false)
    expect(cache.peek("a")).toBe("aa")
    expect(cache.weight).toBe(2)
  })

  it("replacing a value counts its weight once", () => {
    const cache = BoundedCache.make<string, string>({ maxEntries: 10, maxWeight: 10, weigh: (v) => v.length })
    cache.set("a", "aaaa")
    cache.set("a", "aaaaaa")
    expect(cache.size).toBe(1)
    expect(cache.weight).toBe(6)
    expect(cache.delete("a")).toBe(true)
    expect(cache.weight).toBe(0)
  })
})
