import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as DocumentCache from "../../../../adapters/clientmetadata/oauth/DocumentCache.js"
import { ClientMetadataDocument } from "../../../../domain/oauth/ClientMetadataDocument.js"

const url = (n: number) => `https://client.example/${n}`

const document = (n: number) =>
  new ClientMetadataDocument({ client_id: url(n), redirect_uris: [`https://client.example/${n}/callback`] })

const later = 60_000

describe("DocumentCache", () => {
  it("holds at most maxDocuments, dropping the least recently used", () => {
    const cache = DocumentCache.make()
    const limit = DocumentCache.maxDocuments
    for (let n = 0; n < limit; n++) cache.set(url(n), document(n), 500, later)
    // Read the first again: the second becomes the least recently used.
    expect(Option.isSome(cache.get(url(0), 0))).toBe(true)
    cache.set(url(limit), document(limit), 500, later)
    expect(cache.size).toBe(limit)
    expect(Option.isNone(cache.get(url(1), 0))).toBe(true)
    expect(Option.isSome(cache.get(url(0), 0))).toBe(true)
    expect(Option.isSome(cache.get(url(limit), 0))).toBe(true)
  })

  it("holds at most maxBytes of documents, dropping the least recently used", () => {
    const cache = DocumentCache.make()
    // Documents of the largest size a fetch accepts: 64 of them fill the cache.
    const bytes = 64 * 1024
    const fit = DocumentCache.maxBytes / bytes
    for (let n = 0; n <= fit; n++) cache.set(url(n), document(n), bytes, later)
    expect(cache.bytes).toBe(DocumentCache.maxBytes)
    expect(cache.size).toBe(fit)
    expect(Option.isNone(cache.get(url(0), 0))).toBe(true)
    expect(Option.isSome(cache.get(url(1), 0))).toBe(true)
    expect(Option.isSome(cache.get(url(fit), 0))).toBe(true)
  })

  it("drops a document once its time to live has run out", () => {
    const cache = DocumentCache.make()
    cache.set(url(0), document(0), 500, later)
    expect(Option.isSome(cache.get(url(0), later - 1))).toBe(true)
    expect(Option.isNone(cache.get(url(0), later))).toBe(true)
    expect(cache.size).toBe(0)
    expect(cache.bytes).toBe(0)
  })
})
