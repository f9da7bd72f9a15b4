import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as jose from "jose"
import * as AuthKeysCommand from "../../../../adapters/cli/auth/KeysCommand.js"
import type * as SourceOptions from "../../../../adapters/cli/auth/SourceOptions.js"
import * as AuthUsersCommand from "../../../../adapters/cli/auth/UsersCommand.js"
import * as CommandTree from "../../../../adapters/cli/CommandTree.js"
import * as JoseApiKeySigner from "../../../../adapters/crypto/auth/JoseApiKeySigner.js"
import type { AuthSettings } from "../../../../application/auth/AuthSettings.js"
import { JwtSettings } from "../../../../application/auth/JwtSettings.js"
import type { ApiKeySigner } from "../../../../application/auth/ports/ApiKeySigner.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import * as ApiKey from "../../../../domain/auth/ApiKey.js"
import { type Algorithm, defaultValidMethods } from "../../../../domain/auth/SigningKey.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import * as CliRun from "../../../support/CliRun.js"

const services = Layer.merge(
  MemoryServices.layer({ anonymousEnabled: false, mailerAutoconfirm: false, smsAutoconfirm: false }),
  NodeContext.layer
)

const secret = "a-jwt-secret-of-at-least-thirty-two-characters"

/** `keys api`'s configuration: the settings of a service with `secret`, HS256 allowed or not. */
const configured = (options: {
  readonly secret?: string
  readonly validMethods?: ReadonlyArray<Algorithm>
}) =>
  Layer.mergeAll(
    MemoryServices.settings(),
    Layer.succeed(JwtSettings, {
      issuer: "http://localhost:8081",
      lifetime: Duration.hours(1),
      validMethods: options.validMethods ?? defaultValidMethods,
      secret: Option.map(Option.fromNullable(options.secret), Redacted.make),
      keys: [],
      keyCacheLifetime: Duration.zero
    }),
    JoseApiKeySigner.layer
  )

/** The sources each command was given its services for, in order. */
const given: Array<SourceOptions.Sources> = []

/**
 * `latchkey auth <args>`, its commands running on the services the test provides, `keys api`
 * on `keysApi`, whatever their sources (noted in `given`).
 */
const cli =
  (keysApi: Layer.Layer<JwtSettings | AuthSettings | ApiKeySigner>) =>
  (...args: Array<string>) =>
    Effect.flatMap(Effect.context<AuthUsersCommand.Services | AuthKeysCommand.Services>(), (context) => {
      const provided = Layer.succeedContext(context)
      const noting =
        <A>(layer: A) =>
        (sources: SourceOptions.Sources) => {
          given.push(sources)
          return layer
        }
      const auth = CommandTree.group("auth", "The auth commands.", [
        AuthUsersCommand.command(noting(provided)),
        AuthKeysCommand.command(noting(provided), noting(keysApi))
      ])
      return CliRun.capture(CommandTree.run(auth, { name: "latchkey", version: "test" }))(...args)
    })

const run = cli(configured({ secret }))

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
      const filtered = yield* run("users", "list", "--filter", "ADA@")
      expect(filtered).toContain("ada@example.com")
      expect(filtered).toMatch(/^1 user$/m)
      expect(yield* run("users", "list", "--filter", "grace")).toContain("0 users")
      const refused = yield* Effect.either(run("users", "create", "--email", "ada@example.com"))
      expect(refused._tag).toBe("Left")
      // A refusal reads as the API's would, a missing password variable too.
      const unset = yield* Effect.flip(
        run("users", "create", "--email", "grace@example.com", "--password-env", "LATCHKEY_TEST_UNSET")
      )
      expect(String(unset)).toContain(
        "validation_failed: LATCHKEY_TEST_UNSET is not set (--password-env names it)"
      )
      expect(yield* run("users", "delete", "--soft", id)).toContain(`deleted ${id} (soft)`)
      // Listed still, as GET /admin/users lists a soft-deleted user, without their address.
      const kept = yield* run("users", "list")
      expect(kept).toContain(`${id}\t(deleted)\t-`)
      expect(kept).not.toContain("ada@example.com")
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

  it.effect(
    "keys api: the anon and service_role keys, HS256 with the secret, as supabase status prints them",
    () =>
      Effect.gen(function* () {
        const printed = yield* run("keys", "api")
        const keyOf = (role: string) => new RegExp(`^${role} key: (\\S+)$`, "m").exec(printed)?.[1] ?? ""
        for (const role of ApiKey.roles) {
          const { payload, protectedHeader } = yield* Effect.promise(() =>
            jose.jwtVerify(keyOf(role), new TextEncoder().encode(secret), {
              algorithms: ["HS256"],
              // it.effect runs on TestClock, at the epoch.
              currentDate: new Date(0)
            })
          )
          expect(protectedHeader).toEqual({ alg: "HS256", typ: "JWT" })
          expect(payload).toMatchObject({ iss: "supabase", role })
          expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(ApiKey.lifetimeSeconds)
        }
        expect(printed).toContain("signed with AUTHSVC_JWT_SECRET")
        expect(printed).not.toContain("warning")
      }).pipe(Effect.provide(services))
  )

  it.effect("keys api without a secret or without HS256 says what to set, and prints no key", () =>
    Effect.gen(function* () {
      const unset = yield* Effect.either(cli(configured({}))("keys", "api"))
      expect(unset).toMatchObject({ _tag: "Left" })
      if (unset._tag === "Left") expect(String(unset.left)).toContain("AUTHSVC_JWT_SECRET is unset")
      const hs256Off = yield* Effect.either(
        cli(configured({ secret, validMethods: ["RS256", "ES256"] }))("keys", "api")
      )
      if (hs256Off._tag === "Left") expect(String(hs256Off.left)).toContain("AUTHSVC_JWT_VALID_METHODS")
      expect(hs256Off._tag).toBe("Left")
    }).pipe(Effect.provide(services))
  )

  it.effect("reads each command's services from the --config and --config-dir it names", () =>
    Effect.gen(function* () {
      given.length = 0
      yield* run("users", "list", "-c", "/etc/auth.env")
      yield* run("keys", "list", "--config-dir", "/etc/auth.d", "--config", "/etc/auth.env")
      yield* run("keys", "api", "-d", "/etc/auth.d")
      yield* run("users", "list")
      expect(given).toEqual([
        { file: Option.some("/etc/auth.env"), directory: Option.none() },
        { file: Option.some("/etc/auth.env"), directory: Option.some("/etc/auth.d") },
        { file: Option.none(), directory: Option.some("/etc/auth.d") },
        { file: Option.none(), directory: Option.none() }
      ])
    }).pipe(Effect.provide(services))
  )
})
