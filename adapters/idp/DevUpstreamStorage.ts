import type { Adapter, AdapterPayload } from "oidc-provider"
import * as BoundedCache from "../BoundedCache.js"

/**
 * oidc-provider's storage for the dev upstream: one map per provider instance, gone when it
 * stops. oidc-provider ships a memory adapter too, but it warns on every start and keeps its
 * data in a module-wide store that two dev upstreams in one process would share.
 */

/**
 * Entries (sessions, interactions, codes, grants…, all models together) kept at once; past it
 * the oldest written goes. Every visit to the login page writes some, and entries without a
 * lifetime never expire, so without a limit a dev upstream left running would grow with every
 * visitor. Ten thousand is a few megabytes, and far more logins than development sees.
 */
export const maxEntries = 10_000

interface Stored {
  readonly payload: AdapterPayload
  /** Epoch milliseconds; `Infinity` when oidc-provider gave no lifetime. */
  readonly expiresAt: number
}

/** An `adapter` for oidc-provider's configuration: called once per model name. */
export const make = (): ((model: string) => Adapter) => {
  // Read with `peek`: eviction goes by when an entry was written, not read.
  const entries = BoundedCache.make<string, Stored>({ maxEntries })

  const live = (key: string): Stored | undefined => {
    const stored = entries.peek(key)
    if (stored !== undefined && stored.expiresAt <= Date.now()) {
      entries.delete(key)
      return undefined
    }
    return stored
  }

  const purgeExpired = () => {
    const now = Date.now()
    for (const [key, stored] of entries) if (stored.expiresAt <= now) entries.delete(key)
  }

  return (model) => {
    const prefix = `${model}:`
    const findBy = (matches: (payload: AdapterPayload) => boolean): AdapterPayload | undefined => {
      for (const [key] of entries) {
        const stored = key.startsWith(prefix) ? live(key) : undefined
        if (stored !== undefined && matches(stored.payload)) return stored.payload
      }
      return undefined
    }
    return {
      upsert: async (id, payload, expiresIn) => {
        purgeExpired()
        entries.set(`${prefix}${id}`, {
          payload,
          expiresAt: expiresIn === undefined ? Number.POSITIVE_INFINITY : Date.now() + expiresIn * 1000
        })
      },
      find: async (id) => live(`${prefix}${id}`)?.payload,
      findByUid: async (uid) => findBy((payload) => payload.uid === uid),
      findByUserCode: async (userCode) => findBy((payload) => payload.userCode === userCode),
      consume: async (id) => {
        const stored = live(`${prefix}${id}`)
        if (stored !== undefined) {
          const consumed = Math.floor(Date.now() / 1000)
          entries.set(`${prefix}${id}`, { ...stored, payload: { ...stored.payload, consumed } })
        }
      },
      destroy: async (id) => {
        entries.delete(`${prefix}${id}`)
      },
      revokeByGrantId: async (grantId) => {
        for (const [key, stored] of entries) if (stored.payload.grantId === grantId) entries.delete(key)
      }
    }
  }
}
