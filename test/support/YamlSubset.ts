/**
 * A reader for the part of YAML that compose.yaml is written in, for test/Deployment.test.ts,
 * which checks the file where no `docker compose` is installed: block mappings, block sequences
 * (of scalars, or of mappings: `- key: value` and the keys indented under it), plain and quoted
 * scalars, flow sequences of scalars (`["CMD", "node"]`) and comments. Anything else (anchors,
 * flow mappings, multi-line scalars, tags) is refused with the line, so that the file stays in
 * what this reads rather than being read wrong. Scalars stay strings: the checks compare text.
 */

export type Value = string | ReadonlyArray<Value> | { readonly [key: string]: Value }

interface Line {
  readonly number: number
  readonly indent: number
  readonly text: string
}

const refuse = (line: Line, why: string): never => {
  throw new Error(`compose.yaml line ${line.number}: ${why}: ${line.text}`)
}

/** The text without a comment: `#` at the start or after a space, outside quotes. */
const withoutComment = (text: string): string => {
  let quote: string | undefined
  for (let index = 0; index < text.length; index++) {
    const char = text[index]
    if (quote !== undefined) {
      if (char === quote) quote = undefined
    } else if (char === '"' || char === "'") {
      quote = char
    } else if (char === "#" && (index === 0 || text[index - 1] === " ")) {
      return text.slice(0, index).trimEnd()
    }
  }
  return text.trimEnd()
}

const scalar = (line: Line, raw: string): Value => {
  const text = raw.trim()
  if (text.startsWith("[")) {
    if (!text.endsWith("]")) return refuse(line, "a flow sequence must close on its line")
    const inner = text.slice(1, -1).trim()
    if (inner === "") return []
    return (inner.match(/"(?:[^"\\]|\\.)*"|'[^']*'|[^,]+/g) ?? []).map((item) => scalar(line, item))
  }
  if (text.startsWith('"')) return JSON.parse(text)
  if (text.startsWith("'")) return text.slice(1, -1).replaceAll("''", "'")
  if (/^[&*!{|>]/.test(text)) return refuse(line, "outside the subset this reader takes")
  return text
}

/** `key: rest` of a mapping entry; undefined when the text is no entry. */
const entry = (text: string): { readonly key: string; readonly rest: string } | undefined => {
  const match = /^("[^"]*"|'[^']*'|[^\s:"'][^:]*?):(?:\s+(.*))?$/.exec(text)
  if (match === null) return undefined
  const key = match[1] ?? ""
  return { key: key.replace(/^["']|["']$/g, ""), rest: match[2] ?? "" }
}

/** Parses compose.yaml's text. */
export const parse = (text: string): Value => {
  const lines: Array<Line> = text.split("\n").flatMap((raw, index) => {
    const content = withoutComment(raw)
    if (content.trim() === "") return []
    if (raw.includes("\t")) throw new Error(`compose.yaml line ${index + 1}: a tab`)
    return [{ number: index + 1, indent: content.length - content.trimStart().length, text: content.trim() }]
  })
  let position = 0

  const block = (indent: number): Value => {
    const first = lines[position]
    if (first === undefined || first.indent !== indent) return ""
    return first.text.startsWith("- ") || first.text === "-" ? sequence(indent) : mapping(indent)
  }

  const valueAfter = (line: Line, rest: string, indent: number): Value => {
    if (rest !== "") return scalar(line, rest)
    const next = lines[position]
    if (next === undefined || next.indent <= indent) return ""
    return block(next.indent)
  }

  const mapping = (indent: number, firstText?: string): Value => {
    const result: Record<string, Value> = {}
    let pending = firstText
    for (;;) {
      const line = lines[position]
      let text: string
      if (pending !== undefined) {
        text = pending
        pending = undefined
      } else {
        if (line === undefined || line.indent < indent) break
        if (line.indent > indent) refuse(line, "unexpected indentation")
        if (line.text.startsWith("- ")) break
        text = line.text
      }
      const current = lines[position] ?? refuse({ number: 0, indent, text }, "no line")
      const found = entry(text) ?? refuse(current, "expected `key: value`")
      if (found.key in result) refuse(current, `${found.key} twice`)
      position++
      result[found.key] = valueAfter(current, found.rest, indent)
    }
    return result
  }

  const sequence = (indent: number): Value => {
    const result: Array<Value> = []
    for (;;) {
      const line = lines[position]
      if (line === undefined || line.indent !== indent || !line.text.startsWith("-")) break
      const rest = line.text.slice(1).trim()
      const found = entry(rest)
      if (found !== undefined && !rest.startsWith("[") && !rest.startsWith('"')) {
        // A mapping item: its first key on the dash's line, the others indented as that key.
        result.push(mapping(indent + 2, rest))
      } else {
        position++
        result.push(valueAfter(line, rest, indent))
      }
    }
    return result
  }

  const root = block(0)
  const left = lines[position]
  if (left !== undefined) refuse(left, "not read")
  return root
}
