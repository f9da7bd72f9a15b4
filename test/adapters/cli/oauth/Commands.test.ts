import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as CommandTree from "../../../../adapters/cli/CommandTree.js"
import * as OAuthClientsCommand from "../../../../adapters/cli/oauth/ClientsCommand.js"
import * as OAuthReapCommand from "../../../../adapters/cli/oauth/ReapCommand.js"
import * as NodeSecrets from "../../../../adapters/crypto/NodeSecrets.js"
import * as OAuthStorageMemory from "../../../../adapters/memory/oauth/OAuthStorageMemory.js"
import { ClientRepository } from "../../../../application/oauth/ports/ClientRepository.js"
import { ClientId } from "../../../../domain/Ids.js"
import * as CliRun from "../../../support/CliRun.js"

const services = Layer.mergeAll(OAuthStorageMemory.layer, NodeSecrets.layer, NodeContext.layer)

/** `latchkey oauth <args>`, its commands running on the services the test provides. */
const run = (...args: Array<string>) =>
  Effect.flatMap(
    Effect.context<OAuthClientsCommand.Services | CommandTree.Needs<typeof OAuthReapCommand.command>>(),
    (context) => {
      const provided = Layer.succeedContext(context)
      const oauth = CommandTree.group("oauth", "The oauth commands.", [
        OAuthClientsCommand.command(provided),
        CommandTree.leaf(Command.provide(OAuthReapCommand.command, provided))
      ])
      return CliRun.capture(CommandTree.run(oauth, { name: "latchkey", version: "test" }))(...args)
    }
  )

describe("latchkey oauth clients", () => {
  it.effect("creates public and confidential clients, lists and deletes them", () =>
    Effect.gen(function* () {
      const created = yield* run(
        "clients",
        "create",
        "--name",
        "Tool",
        "--redirect-uri",
        "http://127.0.0.1/cb"
      )
      const id = /client_id: (\S+)/.exec(created)?.[1] ?? ""
      expect(id).not.toBe("")
      expect(created).not.toContain("client_secret")

      const web = yield* run(
        "clients",
        "create",
        "--name",
        "Web",
        "--redirect-uri",
        "https://app.example.com/cb",
        "--redirect-uri",
        "https://app.example.com/cb2",
        "--confidential",
        "--client-id",
        "web"
      )
      expect(web).toContain("client_id: web")
      expect(web).toMatch(/client_secret: lks_[A-Za-z0-9_-]{43}/)
      const stored = Option.getOrThrow(
        yield* Effect.flatMap(ClientRepository, (c) => c.findById(ClientId.make("web")))
      )
      expect(stored.type).toBe("confidential")
      expect(stored.redirectUris).toHaveLength(2)

      const listed = yield* run("clients", "list")
      expect(listed).toContain(id)
      expect(listed).toContain("web\tconfidential\tseeded")

      expect(yield* run("clients", "delete", "web")).toContain("deleted web")
      expect(
        Option.isNone(yield* Effect.flatMap(ClientRepository, (c) => c.findById(ClientId.make("web"))))
      ).toBe(true)
    }).pipe(Effect.provide(services))
  )

  it.effect("refuses bad redirect URIs, a taken id, and a secret from a variable that is not set", () =>
    Effect.gen(function* () {
      const bad = yield* Effect.either(
        run("clients", "create", "--name", "x", "--redirect-uri", "http://evil.example/cb")
      )
      expect(bad._tag).toBe("Left")
      yield* run(
        "clients",
        "create",
        "--name",
        "x",
        "--redirect-uri",
        "https://a.example/cb",
        "--client-id",
        "taken"
      )
      const taken = yield* Effect.either(
        run(
          "clients",
          "create",
          "--name",
          "x",
          "--redirect-uri",
          "https://a.example/cb",
          "--client-id",
          "taken"
        )
      )
      expect(taken._tag === "Left" && String(taken.left)).toContain("already exists")
      const unset = yield* Effect.either(
        run(
          "clients",
          "create",
          "--name",
          "x",
          "--redirect-uri",
          "https://a.example/cb",
          "--confidential",
          "--secret-env",
          "LATCHKEY_TEST_UNSET"
        )
      )
      expect(unset._tag === "Left" && String(unset.left)).toContain("LATCHKEY_TEST_UNSET is not set")
    }).pipe(Effect.provide(services))
  )
})

describe("latchkey oauth reap", () => {
  it.effect("reports what it removed", () =>
    Effect.gen(function* () {
      const output = yield* run("reap")
      expect(output).toContain("removed 0 idle client(s)")
      expect(output).toContain("purged 0 code(s)")
    }).pipe(Effect.provide(services))
  )
})
