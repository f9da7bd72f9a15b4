/**
 * One batch of a reaper in memory: of `rows`, the first `limit` that `expired` picks are gone,
 * the others kept in their order. Memory holds no locks, so there is nothing to pass over.
 */
export const reapBatch = <A>(rows: ReadonlyArray<A>, expired: (row: A) => boolean, limit: number) => {
  const gone = new Set(rows.filter(expired).slice(0, limit))
  return { count: gone.size, kept: rows.filter((row) => !gone.has(row)) }
}
