/**
 * Supabase Auth's update of a metadata object: each key given replaces the stored one, a key
 * given as `null` is removed, keys not given stay.
 */
export const merge = (
  stored: Readonly<Record<string, unknown>>,
  changes: Readonly<Record<string, unknown>>
): Record<string, unknown> => {
  const merged: Record<string, unknown> = { ...stored }
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete merged[key]
    else merged[key] = value
  }
  return merged
}
