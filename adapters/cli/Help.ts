import type * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Span from "@effect/cli/HelpDoc/Span"
import type * as Usage from "@effect/cli/Usage"
import * as Option from "effect/Option"

/**
 * The help of a `latchkey` command or group, as plain text: the whole command in its usage, what
 * it does, its arguments and options as their descriptions say, and the variables it reads.
 * Descriptions, arguments and options come from the @effect/cli command; the layout is this
 * module's (@effect/cli's own help repeats the names of nested commands, shows only a command's
 * last word, describes every text option by its type and writes colour codes into pipes).
 */

/** Lines are wrapped to fit a terminal of the usual width. */
const width = 80

/** The left column of a table never takes more than this; a longer entry puts its text below. */
const widestName = 28

const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    case "Highlight":
    case "Strong":
    case "Weak":
      return spanText(span.value)
  }
}

/** The blocks of a document, in order, sequences flattened. */
const blocksOf = (doc: HelpDoc.HelpDoc): ReadonlyArray<HelpDoc.HelpDoc> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Sequence":
      return [...blocksOf(doc.left), ...blocksOf(doc.right)]
    default:
      return [doc]
  }
}

/** The text of every paragraph of a document, in order. */
const paragraphsOf = (doc: HelpDoc.HelpDoc): ReadonlyArray<string> =>
  blocksOf(doc).flatMap((block) => {
    switch (block._tag) {
      case "Paragraph":
        return [spanText(block.value)]
      case "Enumeration":
        return block.elements.flatMap(paragraphsOf)
      default:
        return []
    }
  })

/** The blocks under each header (`DESCRIPTION`, `ARGUMENTS`, `OPTIONS`) of a command's help. */
const sectionsOf = (doc: HelpDoc.HelpDoc): ReadonlyMap<string, ReadonlyArray<HelpDoc.HelpDoc>> => {
  const sections = new Map<string, Array<HelpDoc.HelpDoc>>()
  let current: Array<HelpDoc.HelpDoc> | undefined
  for (const block of blocksOf(doc)) {
    if (block._tag === "Header") {
      current = []
      sections.set(spanText(block.value), current)
    } else current?.push(block)
  }
  return sections
}

/** What @effect/cli adds after a description, said shorter; none for what the usage shows. */
const defaultNote = /^This setting is optional\.(?: Defaults to: (.*))?$/

/** What @effect/cli adds after a repeatable one's, which the usage shows (`URI...`). */
const repeatNote = /^This (?:option|argument) may be repeated zero or more times\.$/

/**
 * The entries of an `ARGUMENTS` or `OPTIONS` section: the name as the usage writes it, and the
 * description. @effect/cli puts the value's type first ("A user-defined piece of text."), which
 * the usage already shows, then the description, then whether it is optional.
 */
const entriesOf = (blocks: ReadonlyArray<HelpDoc.HelpDoc>): ReadonlyArray<readonly [string, string]> =>
  blocks.flatMap((block) =>
    block._tag === "DescriptionList"
      ? block.definitions.map(([name, doc]): readonly [string, string] => {
          const [, ...said] = paragraphsOf(doc)
          const text = said.flatMap((paragraph) => {
            if (repeatNote.test(paragraph)) return []
            const note = defaultNote.exec(paragraph)
            if (note === null) return [paragraph]
            return note[1] === undefined ? [] : [`(default: ${note[1]})`]
          })
          return [spanText(name).replace(/^\((.*)\)$/, "$1"), text.join(" ")]
        })
      : []
  )

/** The usage's words after the command's own name: its options and arguments as typed. */
const usageText = (usage: Usage.Usage): string => {
  switch (usage._tag) {
    case "Empty":
      return ""
    case "Mixed":
      return "<command>"
    case "Named": {
      const name = usage.names.find((candidate) => candidate.startsWith("--")) ?? usage.names[0] ?? ""
      return Option.match(usage.acceptedValues, {
        onNone: () => name,
        onSome: (values) => `${name} ${values}`
      })
    }
    case "Optional":
      return `[${usageText(usage.usage)}]`
    case "Repeated":
      return `${usageText(usage.usage)}...`
    case "Alternation":
      return `${usageText(usage.left)} | ${usageText(usage.right)}`
    case "Concat":
      return [usageText(usage.left), usageText(usage.right)].filter((part) => part !== "").join(" ")
  }
}

/** A command's usage without its name (the first word @effect/cli gives it). */
const argumentsOf = (usage: Usage.Usage): string =>
  usage._tag === "Concat" && usage.left._tag === "Named" ? usageText(usage.right) : ""

/** `text` in lines of at most `width - indent` characters, each indented by `indent`. */
const wrap = (text: string, indent: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((part) => part !== "")) {
    if (line !== "" && indent + line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  if (line !== "") lines.push(line)
  return lines.map((wrapped) => `${" ".repeat(indent)}${wrapped}`)
}

/** Two columns: names on the left, their text on the right, wrapped. */
const table = (rows: ReadonlyArray<readonly [string, string]>): ReadonlyArray<string> => {
  const left = Math.min(widestName, Math.max(0, ...rows.map(([name]) => name.length)))
  const textAt = 2 + left + 2
  return rows.flatMap(([name, text]) => {
    const [first = "", ...rest] = wrap(text, textAt)
    if (name.length > left) return [`  ${name}`, ...(first === "" ? [] : [first]), ...rest]
    return [`  ${name.padEnd(left)}  ${first.trimStart()}`.trimEnd(), ...rest]
  })
}

const section = (title: string, lines: ReadonlyArray<string>): ReadonlyArray<string> =>
  lines.length === 0 ? [] : ["", title, ...lines]

const helpOption: readonly [string, string] = ["-h, --help", "Show this help"]

/** What the help of a command reads of it (CommandTree.Leaf). */
export interface Described {
  readonly help: HelpDoc.HelpDoc
  readonly usage: Usage.Usage
  readonly environment: ReadonlyArray<{ readonly name: string; readonly meaning: string }>
}

/** A command's description, on one line. */
export const descriptionOf = (command: Described): string =>
  (sectionsOf(command.help).get("DESCRIPTION") ?? []).flatMap(paragraphsOf).join(" ")

/** What a command's help says of it: its description, and each argument's and option's. */
export const partsOf = (
  command: Described
): {
  readonly description: string
  readonly arguments: ReadonlyArray<readonly [string, string]>
  readonly options: ReadonlyArray<readonly [string, string]>
} => {
  const sections = sectionsOf(command.help)
  return {
    description: descriptionOf(command),
    arguments: entriesOf(sections.get("ARGUMENTS") ?? []),
    options: entriesOf(sections.get("OPTIONS") ?? [])
  }
}

/** The help of the command `named` (its whole name, `latchkey auth users list`). */
export const ofCommand = (named: string, command: Described): string => {
  const parts = partsOf(command)
  const usage = [named, argumentsOf(command.usage)].filter((part) => part !== "").join(" ")
  return [
    named,
    "",
    ...wrap(parts.description, 0),
    ...section("USAGE", wrap(usage, 2)),
    ...section("ARGUMENTS", table(parts.arguments)),
    ...section("OPTIONS", table([...parts.options, helpOption])),
    // Names are long and often several: each stands on its line, its meaning indented below.
    ...section(
      "ENVIRONMENT",
      command.environment.flatMap((variable) => [`  ${variable.name}`, ...wrap(variable.meaning, 6)])
    )
  ].join("\n")
}

/**
 * The help of the group `named`: what it is, and every command under it with the words that
 * name it after `named`. The program's own help (`program` given) heads with its version and
 * lists `--version`.
 */
export const ofGroup = (
  named: string,
  description: string,
  commands: ReadonlyArray<readonly [string, Described]>,
  program?: { readonly version: string }
): string =>
  [
    program === undefined ? named : `${named} ${program.version}`,
    "",
    ...wrap(description, 0),
    ...section("USAGE", [`  ${named} <command> [options]`]),
    ...section(
      "COMMANDS",
      table(commands.map(([words, command]): readonly [string, string] => [words, descriptionOf(command)]))
    ),
    ...section(
      "OPTIONS",
      table(program === undefined ? [helpOption] : [helpOption, ["--version", "Show the version"]])
    ),
    "",
    ...wrap(`Run \`${named} <command> --help\` for a command's options and the variables it reads.`, 0)
  ].join("\n")
