import * as HashMap from "effect/HashMap"

/**
 * One batch of a reaper in memory: of `rows`, the first `limit` that `expired` picks are gone,
 * the others kept in their order. Memory holds no locks, so there is nothing to pass over.
 */
export const reapBatch = <A>(rows: ReadonlyArray<A>, expired: (row: A) => boolean, limit: number) => {
  const gone = new Set(rows.filter(expired).slice(0, limit))
  return { count: gone.size, kept: rows.filter((row) => !gone.has(row)) }
}

/** `reapBatch` for a table kept by key: the keys of the entries gone, and the table without them. */
export const reapEntries = <K, V>(
  table: HashMap.HashMap<K, V>,
  expired: (row: V) => boolean,
  limit: number
) => {
  const gone: Array<K> = []
  for (const [key, row] of table) {
    if (gone.length >= limit) break
    if (expired(row)) gone.push(key)
  }
  return { gone, kept: HashMap.removeMany(table, gone) }
}
