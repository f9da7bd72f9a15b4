import { readFileSync } from "node:fs"

/**
 * The fenced code block that follows `<!-- tested: NAME -->` in a document of docs/, for tests
 * that run or read what the documentation tells operators to use, so that it stays true.
 */
export const tested = (document: string, name: string): string => {
  const text = readFileSync(new URL(`../../docs/${document}`, import.meta.url), "utf8")
  const marker = `<!-- tested: ${name} -->`
  const at = text.indexOf(marker)
  if (at < 0) throw new Error(`docs/${document} has no block marked ${marker}`)
  const block = /```[^\n]*\n([\s\S]*?)\n```/.exec(text.slice(at + marker.length))
  if (block === null) throw new Error(`docs/${document}: no fenced block after ${marker}`)
  return `${block[1] ?? ""}\n`
}
