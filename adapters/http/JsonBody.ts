import * as Either from "effect/Either"

/**
 * Nesting deeper than this is refused before parsing. No request of either service needs more
 * than a few levels (metadata objects included), and a body of 64 KiB can otherwise nest
 * 30,000 deep, enough to overflow the stack of whatever walks it next.
 */
export const maxDepth = 64

/** How deep the JSON text nests, stopping early once past `limit`; strings are skipped. */
const depthExceeds = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // a backslash escapes the next character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/**
 * A string PostgreSQL can store and every client can read: no NUL (PostgreSQL refuses 0x00 in
 * text) and no lone UTF-16 surrogate (it cannot be encoded as UTF-8).
 */
export const isStorableText = (value: string): boolean => !value.includes("\u0000") && value.isWellFormed()

const storable = (value: unknown): boolean => {
  if (typeof value === "string") return isStorableText(value)
  if (Array.isArray(value)) return value.every(storable)
  if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (!isStorableText(key) || !storable(item)) return false
    }
  }
  return true
}

/**
 * Parses a JSON body: refused (with a description for the client) when it is not JSON, nests
 * deeper than `maxDepth`, or holds a string that cannot be stored.
 */
export const parse = (text: string): Either.Either<unknown, string> => {
  if (depthExceeds(text, maxDepth)) return Either.left(`the JSON body nests deeper than ${maxDepth} levels`)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return Either.left("the body is not valid JSON")
  }
  return storable(value)
    ? Either.right(value)
    : Either.left("the JSON body holds a NUL character or an unpaired surrogate")
}
