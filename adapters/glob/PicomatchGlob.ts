import picomatch from "picomatch"
import type * as RedirectAllowList from "../../domain/RedirectAllowList.js"

/**
 * picomatch understands far more than the domain's contract (`?`, classes, extglobs, regex-like
 * groups, a leading `!`); everything outside `*`, `**` and `{a,b}` is escaped or switched off,
 * so that an allow-list entry such as `https://host/a(b)*` means what it says.
 */
const options: picomatch.PicomatchOptions = {
  dot: true,
  nonegate: true,
  noextglob: true,
  strictSlashes: true,
  windows: false
}

const escapeOutsideContract = (pattern: string) => pattern.replace(/[?[\]()|+@!$^\\]/g, (char) => `\\${char}`)

/** Compiles each pattern once; patterns come from configuration, so the cache stays small. */
export const make = (): RedirectAllowList.Glob => {
  const compiled = new Map<string, (subject: string) => boolean>()
  return {
    matches: (pattern, subject) => {
      let matcher = compiled.get(pattern)
      if (matcher === undefined) {
        matcher = picomatch(escapeOutsideContract(pattern), options)
        compiled.set(pattern, matcher)
      }
      return matcher(subject)
    }
  }
}

/** A process-wide instance, for callers that do not need their own cache. */
export const glob: RedirectAllowList.Glob = make()
