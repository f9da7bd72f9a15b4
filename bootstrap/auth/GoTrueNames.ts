import type { Variables } from "./AuthEnvironment.js"

/**
 * Supabase Auth's own names for the auth service's variables. Supabase's self-hosting compose
 * file, the Supabase CLI and every GoTrue deployment write `GOTRUE_<NAME>` (and a few names
 * without a prefix), so a team that swaps the image keeps its environment: each is read as the
 * `AUTHSVC_<NAME>` it stands for, unless that is set too, in which case the `AUTHSVC_` name wins.
 */

export const prefix = "GOTRUE_"

/**
 * Where Supabase Auth's configuration loader reads a name other than `GOTRUE_` + ours: a field
 * with a name of its own keeps its section's prefix (`API_EXTERNAL_URL` in the `API` section is
 * `GOTRUE_API_API_EXTERNAL_URL`), and `LOG_LEVEL` is prefixed there where it is not here.
 */
const renamed: ReadonlyMap<string, string> = new Map([
  ["GOTRUE_API_API_EXTERNAL_URL", "AUTHSVC_API_EXTERNAL_URL"],
  ["GOTRUE_DB_DB_NAMESPACE", "AUTHSVC_DB_NAMESPACE"],
  ["GOTRUE_API_REQUEST_ID_HEADER", "AUTHSVC_REQUEST_ID_HEADER"],
  ["GOTRUE_LOG_LEVEL", "LOG_LEVEL"]
])

/**
 * Names Supabase Auth also reads without any prefix, when its prefixed name is unset (`PORT` and
 * `DATABASE_URL` are read here that way already, by the configuration itself).
 */
const unprefixed: ReadonlyMap<string, string> = new Map([
  ["API_EXTERNAL_URL", "AUTHSVC_API_EXTERNAL_URL"],
  ["DB_NAMESPACE", "AUTHSVC_DB_NAMESPACE"],
  ["REQUEST_ID_HEADER", "AUTHSVC_REQUEST_ID_HEADER"]
])

/** The name of ours that `name`, one of Supabase Auth's, stands for; none for any other name. */
export const targetOf = (name: string): string | undefined =>
  renamed.get(name) ??
  unprefixed.get(name) ??
  (name.startsWith(prefix) ? `AUTHSVC_${name.slice(prefix.length)}` : undefined)

export interface Translated {
  /** The variables with each of Supabase Auth's names read as ours. */
  readonly variables: Variables
  /** Which of Supabase Auth's names each of ours was read from. */
  readonly sources: ReadonlyMap<string, string>
  /** Supabase Auth's names left unread because ours (or an earlier of theirs) is set too. */
  readonly shadowed: ReadonlyArray<string>
}

/**
 * `variables` with Supabase Auth's names read as ours. A prefixed name comes before an
 * unprefixed one for the same setting, as in Supabase Auth; ours come before both.
 */
export const translate = (variables: Variables): Translated => {
  const result = new Map(variables)
  const sources = new Map<string, string>()
  const shadowed: Array<string> = []
  const candidates = [...variables.keys()]
    .filter((name) => targetOf(name) !== undefined)
    // Prefixed names first, so that they win over the unprefixed ones.
    .sort((a, b) => Number(!a.startsWith(prefix)) - Number(!b.startsWith(prefix)) || a.localeCompare(b))
  for (const name of candidates) {
    const target = targetOf(name)
    const value = variables.get(name)
    if (target === undefined || value === undefined) continue
    if (result.has(target)) {
      // An unprefixed name that is also one of ours (none today) or is shadowed quietly: only
      // `GOTRUE_` names are worth a word, being clearly meant for this service.
      if (name.startsWith(prefix)) shadowed.push(name)
      continue
    }
    result.set(target, value)
    sources.set(target, name)
  }
  return { variables: result, sources, shadowed: shadowed.sort() }
}

/**
 * The start-up line that says which of Supabase Auth's names were read, and which were left
 * unread for ours; none when there were none.
 */
export const notice = (translated: Translated): ReadonlyArray<string> => {
  const read = [...translated.sources.values()].sort()
  if (read.length === 0 && translated.shadowed.length === 0) return []
  const parts = [
    ...(read.length === 0 ? [] : [`read Supabase Auth's names as latchkey's: ${read.join(", ")}`]),
    ...(translated.shadowed.length === 0
      ? []
      : [`left for their AUTHSVC_ names, which are set too: ${translated.shadowed.join(", ")}`])
  ]
  return [parts.join("; ")]
}
