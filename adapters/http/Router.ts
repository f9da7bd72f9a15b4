/**
 * Route templates (`/admin/users/{user_id}`) matched against request paths. Static paths are
 * one map look-up; templates with parameters are tried segment by segment. A path is matched
 * as sent: `//token`, `/token/` and `/%74oken` are not `/token`.
 */

export interface Template<A> {
  readonly method: string
  readonly path: string
  readonly value: A
}

export type Match<A> =
  | { readonly _tag: "Found"; readonly value: A; readonly params: Readonly<Record<string, string>> }
  | {
      readonly _tag: "MethodNotAllowed"
      /** The methods the path answers to, and what each leads to. */
      readonly allowed: ReadonlyMap<string, A>
    }
  | { readonly _tag: "NotFound" }

interface Pattern<A> {
  readonly segments: ReadonlyArray<{ readonly param: string } | { readonly literal: string }>
  readonly byMethod: Map<string, A>
}

const paramName = (segment: string): string | undefined =>
  segment.startsWith("{") && segment.endsWith("}") ? segment.slice(1, -1) : undefined

const decodeSegment = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

export interface Router<A> {
  readonly match: (method: string, path: string) => Match<A>
}

export const make = <A>(templates: ReadonlyArray<Template<A>>): Router<A> => {
  const statics = new Map<string, Map<string, A>>()
  const patterns: Array<Pattern<A>> = []
  for (const template of templates) {
    const parts = template.path.split("/").slice(1)
    if (parts.every((part) => paramName(part) === undefined)) {
      const byMethod = statics.get(template.path) ?? new Map<string, A>()
      byMethod.set(template.method, template.value)
      statics.set(template.path, byMethod)
      continue
    }
    const existing = patterns.find((p) => p.segments.length === parts.length && samePattern(p, parts))
    const byMethod = existing?.byMethod ?? new Map<string, A>()
    byMethod.set(template.method, template.value)
    if (existing === undefined) {
      patterns.push({
        segments: parts.map((part) => {
          const param = paramName(part)
          return param === undefined ? { literal: part } : { param }
        }),
        byMethod
      })
    }
  }

  /** The patterns a path fits, with the parameters each gives it. */
  const fitting = (path: string) => {
    const fits: Array<{ readonly byMethod: Map<string, A>; readonly params: Record<string, string> }> = []
    if (patterns.length === 0) return fits
    const parts = path.split("/").slice(1)
    for (const pattern of patterns) {
      if (pattern.segments.length !== parts.length) continue
      const params: Record<string, string> = {}
      let matched = true
      for (let i = 0; i < parts.length && matched; i++) {
        const segment = pattern.segments[i]
        const part = parts[i] ?? ""
        if (segment === undefined) matched = false
        else if ("literal" in segment) matched = segment.literal === part
        else {
          const decoded = part === "" ? undefined : decodeSegment(part)
          if (decoded === undefined) matched = false
          else params[segment.param] = decoded
        }
      }
      if (matched) fits.push({ byMethod: pattern.byMethod, params })
    }
    return fits
  }

  return {
    match: (method, path) => {
      // A literal path wins over a template (`/user/identities/authorize` over
      // `/user/identities/{identity_id}`), but only for the methods it answers to.
      const literal = statics.get(path)
      const value = literal?.get(method)
      if (value !== undefined) return { _tag: "Found", value, params: {} }
      const fits = fitting(path)
      for (const fit of fits) {
        const found = fit.byMethod.get(method)
        if (found !== undefined) return { _tag: "Found", value: found, params: fit.params }
      }
      const allowed = new Map<string, A>()
      for (const byMethod of [
        ...(literal === undefined ? [] : [literal]),
        ...fits.map((fit) => fit.byMethod)
      ]) {
        for (const [name, entry] of byMethod) if (!allowed.has(name)) allowed.set(name, entry)
      }
      return allowed.size === 0 ? { _tag: "NotFound" } : { _tag: "MethodNotAllowed", allowed }
    }
  }
}

const samePattern = <A>(pattern: Pattern<A>, parts: ReadonlyArray<string>) =>
  pattern.segments.every((segment, i) => {
    const part = parts[i] ?? ""
    const param = paramName(part)
    return "literal" in segment ? segment.literal === part : param !== undefined
  })
