import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as AuthKeysCommand from "../../../../adapters/cli/auth/KeysCommand.js"
import * as AuthUsersCommand from "../../../../adapters/cli/auth/UsersCommand.js"
import * as CommandTree from "../../../../adapters/cli/CommandTree.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import * as CliRun from "../../../support/CliRun.js"

const services = Layer.merge(
  MemoryServices.layer({ anonymousEnabled: false, mailerAutoconfirm: false, smsAutoconfirm: false }),
  NodeContext.layer
)

/** `latchkey auth <args>`, its commands running on the services the test provides. */
const run = (...args: Array<string>) =>
  Effect.flatMap(Effect.context<AuthUsersCommand.Services | AuthKeysCommand.Services>(), (context) => {
    const provided = Layer.succeedContext(context)
    const auth = CommandTree.group("auth", "The auth commands.", [
      AuthUsersCommand.command(provided),
      AuthKeysCommand.command(provided)
    ])
    return CliRun.capture(CommandTree.run(auth, { name: "latchkey", version: "test" }))(...args)
  })

describe("latchkey auth users and keys", () => {
  it.effect("creates users (password from the environment), lists and deletes them", () =>
    Effect.gen(function* () {
      process.env.LATCHKEY_TEST_PASSWORD = "correct horse battery staple"
      const created = yield* run(
        "users",
        "create",
        "--email",
        "ada@example.com",
        "--password-env",
        "LATCHKEY_TEST_PASSWORD",
        "--confirmed"
      )
      const id = /created (\S+)/.exec(created)?.[1] ?? ""
      const stored = Option.getOrThrow(
        yield* Effect.flatMap(UserRepository, (users) => users.findByEmail(Fixtures.email("ada@example.com")))
      )
      expect(stored.id).toBe(id)
      expect(Option.isSome(stored.emailConfirmedAt)).toBe(true)
      expect(yield* run("users", "list")).toContain("ada@example.com")
      const refused = yield* Effect.either(run("users", "create", "--email", "ada@example.com"))
      expect(refused._tag).toBe("Left")
      expect(yield* run("users", "delete", id)).toContain(`deleted ${id}`)
      expect(yield* run("users", "list")).toContain("0 users")
    }).pipe(Effect.provide(services))
  )

  it.effect("adds, rotates, lists and retires signing keys", () =>
    Effect.gen(function* () {
      const first = yield* run("keys", "add", "--alg", "RS256")
      const firstKid = /added (\S+)/.exec(first)?.[1] ?? ""
      yield* run("keys", "rotate")
      const second = yield* run("keys", "add", "--alg", "ES256")
      const secondKid = /added (\S+)/.exec(second)?.[1] ?? ""
      const rotated = yield* run("keys", "rotate")
      expect(rotated).toContain(`${secondKid} signs now`)
      expect(rotated).toContain(`${firstKid} verifies until`)
      const listed = yield* run("keys", "list")
      expect(listed).toMatch(new RegExp(`${secondKid}\\tES256\\tcurrent\\tyes`))
      expect(listed).toMatch(new RegExp(`${firstKid}\\tRS256\\tprevious\\tno`))
      expect(yield* run("keys", "retire", firstKid)).toContain(`retired ${firstKid}`)
      expect(yield* Effect.either(run("keys", "retire", secondKid))).toMatchObject({ _tag: "Left" })
    }).pipe(Effect.provide(services))
  )
})
