import * as Option from "effect/Option"
import type { ClientMetadataDocument } from "../../../domain/oauth/ClientMetadataDocument.js"
import * as BoundedCache from "../../BoundedCache.js"

/**
 * Fetched metadata documents, by URL, until their time to live runs out. Any client can send
 * any URL as its `client_id`, so both the number of documents and their size are the
 * requester's choice: the cache holds at most `maxDocuments` documents and `maxBytes` of them,
 * and the least recently used goes first.
 */

/** Far more clients than fetch their documents within a time to live on any deployment we know. */
export const maxDocuments = 1000

/**
 * Documents are weighed as downloaded, which bounds what their parsed form keeps. Real ones
 * are a few hundred bytes, so 4 MiB holds `maxDocuments` of them with room to spare, while
 * `maxDocuments` documents of the largest size a fetch accepts (64 KiB) would be 64 MiB.
 */
export const maxBytes = 4 * 1024 * 1024

interface Cached {
  readonly document: ClientMetadataDocument
  /** Epoch milliseconds. */
  readonly expiresAt: number
  readonly bytes: number
}

export class DocumentCache {
  private readonly entries = BoundedCache.make<string, Cached>({
    maxEntries: maxDocuments,
    maxWeight: maxBytes,
    weigh: (cached) => cached.bytes
  })

  /** The document, if it is still fresh at `now`; a stale one is dropped. */
  get(url: string, now: number): Option.Option<ClientMetadataDocument> {
    const cached = this.entries.get(url)
    if (cached === undefined) return Option.none()
    if (now >= cached.expiresAt) {
      this.entries.delete(url)
      return Option.none()
    }
    return Option.some(cached.document)
  }

  /** Keeps a document of `bytes` bytes (its size as downloaded) until `expiresAt`. */
  set(url: string, document: ClientMetadataDocument, bytes: number, expiresAt: number): void {
    this.entries.set(url, { document, expiresAt, bytes })
  }

  get size(): number {
    return this.entries.size
  }

  /** The downloaded size of the documents held, added up. */
  get bytes(): number {
    return this.entries.weight
  }
}

export const make = (): DocumentCache => new DocumentCache()
