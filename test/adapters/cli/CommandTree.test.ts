import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as CommandTree from "../../../adapters/cli/CommandTree.js"
import * as Help from "../../../adapters/cli/Help.js"
import * as CliRun from "../../support/CliRun.js"

const name = Options.text("name").pipe(
  Options.withPseudoName("NAME"),
  Options.withDefault("world"),
  Options.withDescription("Whom to greet (default: world)")
)
const loud = Options.boolean("loud").pipe(Options.withDescription("Shout it"))
const times = Args.integer({ name: "TIMES" }).pipe(Args.withDescription("How many greetings"))

const greet = Command.make("greet", { name, loud, times }, ({ name, loud, times }) =>
  Console.log(
    Array.from({ length: times }, () => (loud ? `HELLO ${name.toUpperCase()}` : `hello ${name}`)).join(" ")
  )
).pipe(Command.withDescription("Greet someone."))

const undocumented = Command.make("plain", { what: Options.text("what") }, () => Effect.void)

const tree = CommandTree.group("tool", "A tool with nested commands.", [
  CommandTree.leaf(
    Command.make("version", {}, () => Console.log("v")).pipe(Command.withDescription("Print it."))
  ),
  CommandTree.group("deep", "Commands further down.", [
    CommandTree.group("deeper", "Further still.", [
      CommandTree.leaf(greet, [{ name: "GREETING", meaning: "The word" }])
    ])
  ])
])

const program = { name: "tool", version: "1.2.3" }
const run = CliRun.capture(CommandTree.run(tree, program))

describe("CommandTree", () => {
  it.effect("runs the command its words name, with the words after them", () =>
    Effect.gen(function* () {
      expect(yield* run("deep", "deeper", "greet", "--name", "ada", "--loud", "2")).toBe(
        "HELLO ADA HELLO ADA"
      )
      expect(yield* run("version")).toBe("v")
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.effect("lists every command by its whole name once, and the program's version", () =>
    Effect.gen(function* () {
      const help = yield* run("--help")
      expect(help).toMatch(/^tool 1\.2\.3\n/)
      expect(help).toMatch(/^ {2}version {2,}Print it\.$/m)
      expect(help).toMatch(/^ {2}deep deeper greet {2,}Greet someone\.$/m)
      expect(help).not.toMatch(/\bdeep deep\b/)
      expect(help).toContain("--version")
      // A group's help lists what is under it, named from there.
      const deep = yield* run("deep", "-h")
      expect(deep).toMatch(/^tool deep\n/)
      expect(deep).toMatch(/^ {2}deeper greet {2,}Greet someone\.$/m)
      expect(deep).not.toContain("version")
      // A group named alone shows its help.
      expect(yield* run("deep")).toBe(deep)
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.effect("shows a command's whole name, its arguments, options and variables, described", () =>
    Effect.gen(function* () {
      const help = yield* run("deep", "deeper", "greet", "--name", "x", "--help")
      expect(help).toBe(
        [
          "tool deep deeper greet",
          "",
          "Greet someone.",
          "",
          "USAGE",
          "  tool deep deeper greet [--name NAME] [--loud] <TIMES>",
          "",
          "ARGUMENTS",
          "  <TIMES>  How many greetings",
          "",
          "OPTIONS",
          "  --name NAME  Whom to greet (default: world)",
          "  --loud       Shout it",
          "  -h, --help   Show this help",
          "",
          "ENVIRONMENT",
          "  GREETING",
          "      The word"
        ].join("\n")
      )
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.effect("refuses words that name no command, in one line", () =>
    Effect.gen(function* () {
      const unknown = yield* Effect.flip(run("deep", "shallow"))
      expect(unknown).toBeInstanceOf(CommandTree.UnknownCommand)
      expect(unknown).toMatchObject({ message: "no command `tool deep shallow`; see `tool deep --help`" })
      const option = yield* Effect.flip(run("deep", "--fast"))
      expect(option).toMatchObject({
        message: "`tool deep` takes a command, not --fast; see `tool deep --help`"
      })
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.effect("says which option lacks its value, or is given twice, in one line", () =>
    Effect.gen(function* () {
      const greeting = ["deep", "deeper", "greet"]
      for (const [words, message] of [
        [["--name"], "--name takes a value: --name NAME"],
        [["--name", "--loud", "2"], "--name takes a value: --name NAME"],
        [["--name", "ada", "--name", "bob", "2"], "--name is given twice"],
        [["--loud", "--loud", "2"], "--loud is given twice"]
      ] as const) {
        const problem = yield* Effect.flip(run(...greeting, ...words))
        expect(problem).toBeInstanceOf(CommandTree.UsageProblem)
        expect(problem).toMatchObject({ message: `${message}; see \`tool deep deeper greet --help\`` })
      }
      // A value that looks like an option is a value when no option has that name; after `--`,
      // nothing is an option.
      expect(yield* run(...greeting, "--name", "-ada-", "1")).toBe("hello -ada-")
      expect(yield* Effect.flip(run(...greeting, "--name", "ada", "--", "--name"))).not.toBeInstanceOf(
        CommandTree.UsageProblem
      )
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it("tells a command without descriptions from a described one", () => {
    expect(Help.partsOf(CommandTree.leaf(undocumented))).toEqual({
      description: "",
      arguments: [],
      options: [["--what text", ""]]
    })
    expect(Help.partsOf(CommandTree.leaf(greet))).toEqual({
      description: "Greet someone.",
      arguments: [["<TIMES>", "How many greetings"]],
      options: [
        ["--name NAME", "Whom to greet (default: world)"],
        ["--loud", "Shout it"]
      ]
    })
  })
})
