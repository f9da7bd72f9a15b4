/**
 * Compares two strings without an early exit, so the time taken does not reveal how long a
 * guessed prefix was right. Lengths are not secret here (hashes and challenges have fixed
 * lengths), so a length mismatch may return at once.
 */
export const constantTimeEqual = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}
