import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { authenticate } from "../../../application/oauth/ClientAuthentication.js"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import { ClientId } from "../../../domain/Ids.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

const web = {
  name: "web",
  redirectUris: ["https://app.example.com/cb"],
  confidential: true,
  clientId: Option.some("web-app"),
  secret: Option.none()
} satisfies ManageClients.CreateClient

/** The message an operator is shown when `create` refuses, or "ok". */
const refusalOf = (definition: ManageClients.CreateClient) =>
  Effect.map(Effect.either(ManageClients.create(definition)), (result) =>
    Either.isLeft(result) ? `${result.left._tag}: ${result.left.message}` : "ok"
  )

const stored = (id: string) =>
  Effect.flatMap(ClientRepository, (clients) => clients.findById(ClientId.make(id)))

describe("ManageClients (latchkey oauth clients), on memory adapters", () => {
  it.effect("a confidential client gets a generated secret, shown once; only its hash is stored", () =>
    Effect.gen(function* () {
      yield* TestClock.adjust(Duration.hours(1))
      const { client, secret } = yield* ManageClients.create({ ...web, clientId: Option.none() })
      expect(client.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(client).toMatchObject({
        name: "web",
        type: "confidential",
        origin: "seeded",
        redirectUris: ["https://app.example.com/cb"],
        createdAt: new Date(Duration.toMillis(Duration.hours(1))),
        lastUsedAt: Option.none()
      })
      const shown = Redacted.value(Option.getOrThrow(secret))
      expect(shown).toMatch(/^lks_/)
      expect(Option.getOrThrow(client.secretHash)).not.toContain(shown)
      expect(yield* stored(client.id)).toEqual(Option.some(client))
      const authenticated = yield* authenticate({
        clientId: Option.some(client.id),
        secret,
        assertion: Option.none()
      })
      expect(authenticated.id).toBe(client.id)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("an operator's secret of 32 characters or more and an operator's client id are kept", () =>
    Effect.gen(function* () {
      const given = Redacted.make("s".repeat(32))
      const { client, secret } = yield* ManageClients.create({ ...web, secret: Option.some(given) })
      expect(client.id).toBe("web-app")
      expect(Option.map(secret, Redacted.value)).toEqual(Option.some("s".repeat(32)))
      const authenticated = yield* authenticate({
        clientId: Option.some("web-app"),
        secret: Option.some(given),
        assertion: Option.none()
      })
      expect(authenticated.id).toBe("web-app")
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("keeps a redirect URI given twice once", () =>
    Effect.gen(function* () {
      const twice = [
        "https://app.example.com/cb",
        "https://app.example.com/other",
        "https://app.example.com/cb"
      ]
      const { client } = yield* ManageClients.create({ ...web, redirectUris: twice })
      expect(client.redirectUris).toEqual(["https://app.example.com/cb", "https://app.example.com/other"])
      expect(Option.map(yield* stored(client.id), (found) => found.redirectUris)).toEqual(
        Option.some(["https://app.example.com/cb", "https://app.example.com/other"])
      )
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("a public client has no secret", () =>
    Effect.gen(function* () {
      const { client, secret } = yield* ManageClients.create({ ...web, confidential: false })
      expect(client.type).toBe("public")
      expect(Option.isNone(secret)).toBe(true)
      expect(Option.isNone(client.secretHash)).toBe(true)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("refuses a definition it cannot seed, storing nothing", () =>
    Effect.gen(function* () {
      expect(yield* refusalOf({ ...web, redirectUris: [] })).toBe(
        "InvalidClientDefinition: at least one --redirect-uri is required"
      )
      expect(
        yield* refusalOf({
          ...web,
          redirectUris: ["https://app.example.com/cb", "http://app.example.com/cb"]
        })
      ).toBe("InvalidClientDefinition: redirect_uri must use https, or http on 127.0.0.1, [::1] or localhost")
      expect(
        yield* refusalOf({ ...web, confidential: false, secret: Option.some(Redacted.make("s".repeat(40))) })
      ).toBe("InvalidClientDefinition: a public client has no secret")
      expect(yield* refusalOf({ ...web, secret: Option.some(Redacted.make("s".repeat(31))) })).toBe(
        "InvalidClientDefinition: a client secret must be at least 32 characters"
      )
      expect(yield* refusalOf({ ...web, clientId: Option.some("web app") })).toBe(
        "InvalidClientDefinition: client id must be printable ASCII without spaces"
      )
      expect(Option.isNone(yield* stored("web-app"))).toBe(true)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("refuses a client id that is taken, leaving the first client as it was", () =>
    Effect.gen(function* () {
      const first = yield* ManageClients.create(web)
      expect(yield* refusalOf({ ...web, name: "second", confidential: false })).toBe(
        "InvalidClientDefinition: client web-app already exists"
      )
      expect(yield* stored("web-app")).toEqual(Option.some(first.client))
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("seeds the built-in CLI client once: a public client on the loopback callbacks", () =>
    Effect.gen(function* () {
      const cli = ClientId.make("latchkey-cli")
      expect(yield* ManageClients.seedBuiltinCliClient(cli)).toBe(true)
      expect(yield* ManageClients.seedBuiltinCliClient(cli)).toBe(false)
      const client = Option.getOrThrow(yield* stored(cli))
      expect(client).toMatchObject({
        name: "latchkey CLI",
        type: "public",
        origin: "builtin",
        redirectUris: ManageClients.cliRedirectUris,
        secretHash: Option.none()
      })
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("leaves a client that already holds the CLI's id as it is", () =>
    Effect.gen(function* () {
      const { client } = yield* ManageClients.create({ ...web, clientId: Option.some("latchkey-cli") })
      expect(yield* ManageClients.seedBuiltinCliClient(ClientId.make("latchkey-cli"))).toBe(false)
      expect(yield* stored("latchkey-cli")).toEqual(Option.some(client))
    }).pipe(Effect.provide(Harness.layer))
  )
})
