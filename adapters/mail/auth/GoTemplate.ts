import * as Either from "effect/Either"

/**
 * The part of Go's `html/template` that Supabase Auth's mail templates use, so that templates
 * written for it render here unchanged: `{{ .Field }}` and `{{ .Data.key }}` (values
 * HTML-escaped), `{{ if .X }} … {{ else if .Y }} … {{ else }} … {{ end }}` with Go's truthiness
 * (false, 0, "", nil and empty collections are false), `{{ not .X }}` inside an `if`, comments
 * (from `{{/` and a star to a star and `/}}`), and the `{{-` / `-}}` markers that trim the
 * whitespace beside an action. No npm package renders Go templates faithfully; anything else
 * (pipelines, functions other than `not`, `range`, `with`, variables) is refused when the
 * template is parsed, and the caller falls back to its built-in body.
 */

type Node =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Field"; readonly path: ReadonlyArray<string> }
  | {
      readonly _tag: "If"
      readonly branches: ReadonlyArray<{ readonly test: Test; readonly body: ReadonlyArray<Node> }>
      readonly otherwise: ReadonlyArray<Node>
    }

interface Test {
  readonly negated: boolean
  readonly path: ReadonlyArray<string>
}

export interface Template {
  readonly nodes: ReadonlyArray<Node>
}

type Token =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Action"; readonly body: string; readonly at: number }

const field = /^\.(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)?$/

/** The template's text and actions, with the trim markers applied to the text beside them. */
const tokenize = (source: string): Either.Either<ReadonlyArray<Token>, string> => {
  const tokens: Array<Token> = []
  let rest = 0
  let trimNext = false
  while (rest < source.length) {
    const open = source.indexOf("{{", rest)
    let text = open < 0 ? source.slice(rest) : source.slice(rest, open)
    if (trimNext) text = text.replace(/^\s+/, "")
    if (open < 0) {
      tokens.push({ _tag: "Text", text })
      break
    }
    const close = source.indexOf("}}", open + 2)
    if (close < 0) return Either.left(`unclosed action at ${open}`)
    let body = source.slice(open + 2, close)
    if (body.startsWith("- ") || body === "-") {
      text = text.replace(/\s+$/, "")
      body = body.slice(1)
    }
    trimNext = body.endsWith(" -")
    if (trimNext) body = body.slice(0, -1)
    tokens.push({ _tag: "Text", text })
    tokens.push({ _tag: "Action", body: body.trim(), at: open })
    rest = close + 2
  }
  return Either.right(tokens)
}

const testOf = (expression: string, at: number): Either.Either<Test, string> => {
  const words = expression.split(/\s+/)
  if (words.length === 1 && field.test(words[0] ?? "")) {
    return Either.right({ negated: false, path: pathOf(words[0] ?? ".") })
  }
  if (words.length === 2 && words[0] === "not" && field.test(words[1] ?? "")) {
    return Either.right({ negated: true, path: pathOf(words[1] ?? ".") })
  }
  return Either.left(`unsupported condition "${expression}" at ${at}`)
}

const pathOf = (expression: string): ReadonlyArray<string> =>
  expression === "." ? [] : expression.slice(1).split(".")

/** Parses a template; the error names what is not supported and where. */
export const parse = (source: string): Either.Either<Template, string> =>
  Either.flatMap(tokenize(source), (tokens) => {
    // A stack of open `if`s: each collects its branches; the root collects the template.
    interface Open {
      readonly branches: Array<{ test: Test; body: Array<Node> }>
      otherwise: Array<Node> | undefined
    }
    const root: Array<Node> = []
    const stack: Array<Open> = []
    const current = (): Array<Node> => {
      const top = stack[stack.length - 1]
      if (top === undefined) return root
      return top.otherwise ?? top.branches[top.branches.length - 1]?.body ?? root
    }
    for (const token of tokens) {
      if (token._tag === "Text") {
        if (token.text !== "") current().push({ _tag: "Text", text: token.text })
        continue
      }
      const body = token.body
      if (body.startsWith("/*") && body.endsWith("*/")) continue
      if (field.test(body)) {
        current().push({ _tag: "Field", path: pathOf(body) })
        continue
      }
      const ifMatch = /^if\s+(.+)$/.exec(body)
      const elseIfMatch = /^else\s+if\s+(.+)$/.exec(body)
      if (ifMatch !== null) {
        const test = testOf(ifMatch[1] ?? "", token.at)
        if (Either.isLeft(test)) return Either.left(test.left)
        stack.push({ branches: [{ test: test.right, body: [] }], otherwise: undefined })
      } else if (elseIfMatch !== null) {
        const top = stack[stack.length - 1]
        if (top === undefined || top.otherwise !== undefined)
          return Either.left(`unexpected else if at ${token.at}`)
        const test = testOf(elseIfMatch[1] ?? "", token.at)
        if (Either.isLeft(test)) return Either.left(test.left)
        top.branches.push({ test: test.right, body: [] })
      } else if (body === "else") {
        const top = stack[stack.length - 1]
        if (top === undefined || top.otherwise !== undefined)
          return Either.left(`unexpected else at ${token.at}`)
        top.otherwise = []
      } else if (body === "end") {
        const top = stack.pop()
        if (top === undefined) return Either.left(`unexpected end at ${token.at}`)
        current().push({ _tag: "If", branches: top.branches, otherwise: top.otherwise ?? [] })
      } else {
        return Either.left(`unsupported action "{{ ${body} }}" at ${token.at}`)
      }
    }
    if (stack.length > 0) return Either.left("an if without its end")
    return Either.right({ nodes: root })
  })

const lookUp = (data: unknown, path: ReadonlyArray<string>): unknown => {
  let value = data
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined
    value = Reflect.get(value, key)
  }
  return value
}

/** Go's truth: false, 0, "", nil and empty arrays and maps are false. */
const truthy = (value: unknown): boolean => {
  if (value === undefined || value === null || value === false || value === 0 || value === "") return false
  if (Array.isArray(value)) return value.length > 0
  if (typeof value === "object") return Object.keys(value).length > 0
  return true
}

const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;" }

/** A value as HTML text: escaped, as `html/template` does; nothing for a missing one. */
const printed = (value: unknown, escaping: boolean): string => {
  if (value === undefined || value === null) return ""
  const text =
    typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value)
  return escaping ? text.replace(/[&<>"']/g, (character) => escapes[character] ?? character) : text
}

const renderNodes = (nodes: ReadonlyArray<Node>, data: unknown, escaping: boolean): string => {
  let out = ""
  for (const node of nodes) {
    switch (node._tag) {
      case "Text":
        out += node.text
        break
      case "Field":
        out += printed(lookUp(data, node.path), escaping)
        break
      case "If": {
        const taken = node.branches.find(
          (branch) => truthy(lookUp(data, branch.test.path)) !== branch.test.negated
        )
        out += renderNodes(taken?.body ?? node.otherwise, data, escaping)
        break
      }
    }
  }
  return out
}

/** The template with `data`'s values HTML-escaped (`html/template`). */
export const renderHtml = (template: Template, data: unknown): string =>
  renderNodes(template.nodes, data, true)

/** The template with `data`'s values as they are (`text/template`: subjects, plain-text parts). */
export const renderText = (template: Template, data: unknown): string =>
  renderNodes(template.nodes, data, false)
