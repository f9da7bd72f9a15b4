import type * as CliApp from "@effect/cli/CliApp"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import type * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Usage from "@effect/cli/Usage"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Help from "./Help.js"

/**
 * The `latchkey` commands as a tree: groups (`auth`, `auth users`) hold commands, and each
 * command (`auth users list`) is an @effect/cli command that parses its own options and
 * arguments. The tree is this module's, not @effect/cli's subcommands, so that the help of
 * every command shows its whole name and the variables it reads (Help.ts), and so that the
 * words of a command's path are matched before any of its services is built.
 */

/** A variable a command reads, as its help lists it. */
export interface Variable {
  /** One name, or several that set the same thing (`AUTHSVC_DB_DATABASE_URL, else DATABASE_URL`). */
  readonly name: string
  readonly meaning: string
}

/** How the program names itself. */
export interface Program {
  readonly name: string
  readonly version: string
}

/**
 * What a command's handler may still need when it runs: what @effect/cli itself runs with. A
 * command is given its other services before it becomes a leaf (`Command.provide`), so that they
 * are built only once its words have parsed.
 */
export type Runtime = CliApp.CliApp.Environment

/** A command that runs. */
export interface Leaf {
  readonly _tag: "Leaf"
  readonly name: string
  /** Its description, arguments and options, as @effect/cli gives them (without its built-ins). */
  readonly help: HelpDoc.HelpDoc
  /** Its name, options and arguments. */
  readonly usage: Usage.Usage
  readonly environment: ReadonlyArray<Variable>
  /** Parses `args` (the words after the command's name) and runs the command. */
  readonly run: (args: ReadonlyArray<string>, program: Program) => Effect.Effect<void, unknown, Runtime>
}

/** Commands under one name, which runs nothing itself. */
export interface Group {
  readonly _tag: "Group"
  readonly name: string
  readonly description: string
  readonly children: ReadonlyArray<Node>
}

export type Node = Leaf | Group

/** What the handler of the @effect/cli command `C` needs (a union of commands: any of them). */
export type Needs<C> = C extends Command.Command<infer _Name, infer R, infer _E, infer _A> ? R : never

/** What the help is rendered with: no built-in options (the help lists the few that matter). */
const helpConfig = CliConfig.make({ showBuiltIns: false })

/** A command of @effect/cli, reading `environment`. */
export const leaf = <Name extends string, R extends Runtime, E, A>(
  command: Command.Command<Name, R, E, A>,
  environment: ReadonlyArray<Variable> = []
): Leaf => ({
  _tag: "Leaf",
  // A command made with Command.make has exactly one name.
  name: [...HashSet.values(Command.getNames(command))].join(" "),
  help: Command.getHelp(command, helpConfig),
  usage: Command.getUsage(command),
  environment,
  run: (args, program) =>
    Command.run(command, { name: program.name, version: program.version })([
      program.name,
      program.name,
      ...args
    ])
})

export const group = (name: string, description: string, children: ReadonlyArray<Node>): Group => ({
  _tag: "Group",
  name,
  description,
  children
})

/** Every command under `node` reading `variables` too. */
export const reading =
  (variables: ReadonlyArray<Variable>) =>
  (node: Node): Node =>
    node._tag === "Leaf"
      ? { ...node, environment: [...node.environment, ...variables] }
      : group(node.name, node.description, node.children.map(reading(variables)))

/** The command at `path` under `node` (its words after `node`'s name) reading `variables` too. */
export const readingAt =
  (path: ReadonlyArray<string>, variables: ReadonlyArray<Variable>) =>
  (node: Node): Node => {
    const [first, ...rest] = path
    if (first === undefined) return reading(variables)(node)
    return node._tag === "Leaf"
      ? node
      : group(
          node.name,
          node.description,
          node.children.map((child) => (child.name === first ? readingAt(rest, variables)(child) : child))
        )
  }

/** Every command under `node`, with the words of its path after `node`'s name. */
export const commands = (
  node: Node,
  path: ReadonlyArray<string> = []
): ReadonlyArray<{ readonly path: ReadonlyArray<string>; readonly leaf: Leaf }> =>
  node._tag === "Leaf"
    ? [{ path, leaf: node }]
    : node.children.flatMap((child) => commands(child, [...path, child.name]))

/** The help of `node`, which `path` names (empty: the program). */
export const helpOf = (node: Node, path: ReadonlyArray<string>, program: Program): string => {
  const named = [program.name, ...path].join(" ")
  if (node._tag === "Leaf") return Help.ofCommand(named, node)
  return Help.ofGroup(
    named,
    node.description,
    commands(node).map(({ path: words, leaf }): readonly [string, Help.Described] => [words.join(" "), leaf]),
    path.length === 0 ? program : undefined
  )
}

export class UnknownCommand extends Schema.TaggedError<UnknownCommand>()("UnknownCommand", {
  message: Schema.String
}) {}

const isOption = (word: string) => word.startsWith("-")

export class UsageProblem extends Schema.TaggedError<UsageProblem>()("UsageProblem", {
  message: Schema.String
}) {}

/** An option of a command, under one of its names. */
interface Named {
  /** Its long name, which stands for all of them. */
  readonly name: string
  /** The name of its value (`FILE`); none for a switch. */
  readonly value: Option.Option<string>
  readonly repeatable: boolean
}

/** Every option of a command by each of its names, from its usage. */
const optionsOf = (usage: Usage.Usage, repeatable = false): ReadonlyArray<readonly [string, Named]> => {
  switch (usage._tag) {
    case "Named": {
      const name = usage.names.find((candidate) => candidate.startsWith("--")) ?? usage.names[0] ?? ""
      const named: Named = {
        name,
        value: usage.acceptedValues,
        repeatable
      }
      return usage.names.map((each) => [each, named] as const)
    }
    case "Optional":
      return optionsOf(usage.usage, repeatable)
    case "Repeated":
      return optionsOf(usage.usage, true)
    case "Alternation":
    case "Concat":
      return [...optionsOf(usage.left, repeatable), ...optionsOf(usage.right, repeatable)]
    default:
      return []
  }
}

/**
 * What @effect/cli would misreport in a command's `words` (those after its name): an option
 * that takes a value given none, or none but the next option (it says "Received unknown
 * argument"), and an option given twice that is not repeatable (the same). None: let it parse.
 */
export const usageProblem = (usage: Usage.Usage, words: ReadonlyArray<string>): Option.Option<string> => {
  const options = new Map(optionsOf(usage))
  const end = words.indexOf("--")
  const read = end === -1 ? words : words.slice(0, end)
  const seen = new Set<string>()
  for (let at = 0; at < read.length; at++) {
    const word = read[at] ?? ""
    const option = options.get(word)
    if (option === undefined) continue
    if (seen.has(option.name) && !option.repeatable) return Option.some(`${option.name} is given twice`)
    seen.add(option.name)
    if (Option.isNone(option.value)) continue
    const next = read[at + 1]
    if (next === undefined || options.has(next) || next === "-h" || next === "--help") {
      return Option.some(`${word} takes a value: ${word} ${option.value.value}`)
    }
    at += 1
  }
  return Option.none()
}

/** Whether the words ask for help: `-h` or `--help` before a `--`. */
const asksForHelp = (words: ReadonlyArray<string>) => {
  const end = words.indexOf("--")
  return (end === -1 ? words : words.slice(0, end)).some((word) => word === "-h" || word === "--help")
}

/**
 * Runs the command line `argv` (as `process.argv`: the runtime, the script, then the words):
 * the leading words that name a command find it; `-h` or `--help` anywhere shows the help of
 * what they found; a group named alone shows its help; a word that names nothing is an
 * `UnknownCommand`; a command parses the remaining words itself.
 */
export const run =
  (root: Group, program: Program) =>
  (argv: ReadonlyArray<string>): Effect.Effect<void, unknown, Runtime> => {
    const words = argv.slice(2)
    let node: Node = root
    const path: Array<string> = []
    let at = 0
    while (node._tag === "Group" && at < words.length) {
      const word = words[at] ?? ""
      if (isOption(word)) break
      const child: Node | undefined = node.children.find((candidate) => candidate.name === word)
      if (child === undefined) {
        const named = [program.name, ...path].join(" ")
        return Effect.fail(
          new UnknownCommand({ message: `no command \`${named} ${word}\`; see \`${named} --help\`` })
        )
      }
      node = child
      path.push(word)
      at += 1
    }
    const rest = words.slice(at)
    if (asksForHelp(rest)) return Console.log(helpOf(node, path, program))
    if (node._tag === "Leaf") {
      const named = [program.name, ...path].join(" ")
      return Option.match(usageProblem(node.usage, rest), {
        onNone: () => node.run(rest, program),
        onSome: (problem) => Effect.fail(new UsageProblem({ message: `${problem}; see \`${named} --help\`` }))
      })
    }
    if (node === root && rest.length === 1 && rest[0] === "--version") return Console.log(program.version)
    const [first] = rest
    if (first !== undefined) {
      const named = [program.name, ...path].join(" ")
      return Effect.fail(
        new UnknownCommand({ message: `\`${named}\` takes a command, not ${first}; see \`${named} --help\`` })
      )
    }
    return Console.log(helpOf(node, path, program))
  }
