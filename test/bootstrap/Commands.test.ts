import { describe, expect, it } from "vitest"
import * as CommandTree from "../../adapters/cli/CommandTree.js"
import * as Help from "../../adapters/cli/Help.js"
import * as Commands from "../../bootstrap/Commands.js"

/**
 * The help of every `latchkey` command, as an operator reads it: its whole name, what it does,
 * each argument and option described in words (not by its type), and the variables it reads.
 */

const program = { name: "latchkey", version: "test" }
const every = CommandTree.commands(Commands.latchkey)

describe("the latchkey commands' help", () => {
  it("covers the commands an operator runs", () => {
    const names = every.map(({ path }) => path.join(" "))
    for (const expected of [
      "serve",
      "dev",
      "auth serve",
      "auth migrate",
      "auth users list",
      "auth users create",
      "auth users delete",
      "auth keys list",
      "oauth migrate",
      "oauth clients create",
      "oauth clients delete",
      "oauth reap",
      "oauth login"
    ]) {
      expect(names).toContain(expected)
    }
  })

  it("describes every command, argument and option in words, and names the variables each reads", () => {
    for (const { path, leaf } of every) {
      const named = path.join(" ")
      const parts = Help.partsOf(leaf)
      expect(parts.description, named).not.toBe("")
      for (const [entry, text] of [...parts.arguments, ...parts.options]) {
        expect(text, `${named} ${entry}`).not.toBe("")
        expect(text, `${named} ${entry}`).not.toMatch(/user-defined piece of text|^An integer/)
        expect(entry, `${named} ${entry}`).not.toMatch(/ (text|integer)\b/)
      }
      expect(leaf.environment.length, named).toBeGreaterThan(0)
    }
  })

  it("names each command whole, in its help and in the program's, once", () => {
    const overview = CommandTree.helpOf(Commands.latchkey, [], program)
    for (const { path, leaf } of every) {
      const named = ["latchkey", ...path].join(" ")
      const help = CommandTree.helpOf(leaf, path, program)
      expect(help.split("\n")[0]).toBe(named)
      expect(help).toMatch(new RegExp(`^USAGE\\n  ${named}( |$)`, "m"))
      expect(overview.match(new RegExp(`^  ${path.join(" ")}  `, "gm")), named).toHaveLength(1)
    }
    expect(overview).not.toMatch(/\b(auth auth|oauth oauth|keys keys|users users)\b/)
    // Plain text: the help is for pipes, pagers and files as much as for terminals.
    expect(overview).not.toContain(String.fromCharCode(27))
  })

  it("lists the database and the variables of the users commands, and nothing a command does not read", () => {
    const list = every.find(({ path }) => path.join(" ") === "auth users list")
    const names = list?.leaf.environment.map((variable) => variable.name) ?? []
    expect(names).toContain("AUTHSVC_DB_DATABASE_URL, else DATABASE_URL")
    expect(names).toContain("AUTHSVC_JWT_AUD")
    expect(names.join(" ")).not.toMatch(/AUTHSVC_SITE_URL|AUTHSVC_API_EXTERNAL_URL|AUTHSVC_API_PORT/)
    const create = every.find(({ path }) => path.join(" ") === "auth users create")
    expect(create?.leaf.environment.map((variable) => variable.name).join(" ")).toContain(
      "AUTHSVC_PASSWORD_MIN_LENGTH"
    )
  })
})
