import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import type * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as AuthKeysCommand from "../../../../adapters/cli/auth/KeysCommand.js"
import * as AuthUsersCommand from "../../../../adapters/cli/auth/UsersCommand.js"
import * as JoseAccessTokens from "../../../../adapters/crypto/auth/JoseAccessTokens.js"
import * as RandomTokenMint from "../../../../adapters/crypto/RandomTokenMint.js"
import * as AuthStorageMemory from "../../../../adapters/memory/auth/AuthStorageMemory.js"
import * as SigningKeyStoreMemory from "../../../../adapters/memory/auth/SigningKeyStoreMemory.js"
import * as PasswordHasherMemory from "../../../../adapters/memory/PasswordHasherMemory.js"
import { AuthSettings, noProviders } from "../../../../application/auth/AuthSettings.js"
import { JwtSettings } from "../../../../application/auth/JwtSettings.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import { authPolicy } from "../../../../domain/auth/RefreshPolicy.js"
import * as PasswordPolicy from "../../../../domain/PasswordPolicy.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"

const services = Layer.mergeAll(
  AuthStorageMemory.layer,
  JoseAccessTokens.layer.pipe(
    Layer.provideMerge(
      Layer.merge(
        Layer.succeed(JwtSettings, {
          issuer: "http://localhost:8081",
          lifetime: Duration.hours(1),
          validMethods: ["RS256", "ES256", "EdDSA", "HS256"],
          secret: Option.none(),
          keys: [],
          keyCacheLifetime: Duration.zero
        }),
        SigningKeyStoreMemory.layer
      )
    )
  ),
  Layer.succeed(AuthSettings, {
    siteUrl: "http://localhost:3000",
    audience: "authenticated",
    accessTokenLifetime: Duration.hours(1),
    adminRoles: ["service_role"],
    disableSignup: false,
    emailEnabled: true,
    phoneEnabled: true,
    anonymousEnabled: false,
    mailerAutoconfirm: false,
    smsAutoconfirm: false,
    smsProvider: "",
    manualLinkingEnabled: false,
    updatePasswordRequiresReauthentication: false,
    passwordPolicy: PasswordPolicy.make({}),
    refreshPolicy: authPolicy({ rotationEnabled: true, reuseInterval: Duration.seconds(10) }),
    providers: noProviders
  }),
  PasswordHasherMemory.layer,
  RandomTokenMint.layer,
  NodeContext.layer
)

const cli = Command.run(
  Command.make("auth").pipe(Command.withSubcommands([AuthUsersCommand.command, AuthKeysCommand.command])),
  { name: "latchkey", version: "test" }
)

/** Runs `latchkey auth …` in process and returns what it printed. */
const run = (...args: Array<string>) =>
  Effect.gen(function* () {
    const lines = yield* Ref.make<Array<string>>([])
    const record = (...parts: ReadonlyArray<unknown>) => Ref.update(lines, (all) => [...all, parts.join(" ")])
    const base = yield* Effect.console
    const console: Console.Console = {
      ...base,
      log: (...parts) => record(...parts),
      error: (...parts) => record(...parts)
    }
    yield* cli(["node", "latchkey", ...args]).pipe(Effect.withConsole(console))
    return (yield* Ref.get(lines)).join("\n")
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
