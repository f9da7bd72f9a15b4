/**
 * The rate limiters count in fixed windows that start on multiples of their length since the
 * epoch (domain/FixedWindow.ts). A test that spends a limit and expects the next request to be
 * refused must not straddle a window's end, or the count starts over half-way: waiting out the
 * last `margin` of a window first keeps the outcome the same every run.
 */
export const awayFromWindowEdge = async (windowMs: number, marginMs = 20_000): Promise<void> => {
  const left = windowMs - (Date.now() % windowMs)
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 100))
}

export const fiveMinutes = 5 * 60_000
export const anHour = 60 * 60_000
