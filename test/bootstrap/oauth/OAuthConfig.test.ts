import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as ConfigReport from "../../../bootstrap/ConfigReport.js"
import * as OAuthConfig from "../../../bootstrap/oauth/OAuthConfig.js"

const load = (env: Record<string, string>) =>
  Effect.withConfigProvider(OAuthConfig.database, ConfigProvider.fromMap(new Map(Object.entries(env)))).pipe(
    Effect.either
  )

describe("oauth configuration", () => {
  it.effect("defaults to the embedded database under ./.latchkey/oauth at log level info", () =>
    Effect.gen(function* () {
      const config = Either.getOrThrow(yield* load({}))
      expect(Option.isNone(config.sqlUrl)).toBe(true)
      expect(config.dataDir).toBe(".latchkey/oauth")
      expect(config.logLevel).toBe(LogLevel.Info)
    })
  )

  it.effect("reads SQL_URL, LATCHKEY_DATA_DIR and LOG_LEVEL", () =>
    Effect.gen(function* () {
      const config = Either.getOrThrow(
        yield* load({
          SQL_URL: "postgres://u:p@db:5432/x",
          LATCHKEY_DATA_DIR: "/var/lib/latchkey/",
          LOG_LEVEL: "warn"
        })
      )
      expect(config.sqlUrl.pipe(Option.map(Redacted.value))).toEqual(Option.some("postgres://u:p@db:5432/x"))
      expect(config.dataDir).toBe("/var/lib/latchkey/oauth")
      expect(config.logLevel).toBe(LogLevel.Warning)
    })
  )

  it.effect("reports each wrong value on one line naming the variable, without echoing secrets", () =>
    Effect.gen(function* () {
      const result = yield* load({ SQL_URL: "mysql://root:hunter2@db/x", LOG_LEVEL: "loud" })
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) {
        const lines = ConfigReport.lines(result.left)
        expect(lines).toContain("SQL_URL: expected a postgres:// or postgresql:// URL")
        expect(lines).toContain("LOG_LEVEL: expected one of panic, fatal, error, warn, info, debug, trace")
        expect(lines.join("\n")).not.toContain("hunter2")
      }
    })
  )

  const loadServer = (env: Record<string, string>) =>
    Effect.withConfigProvider(OAuthConfig.server, ConfigProvider.fromMap(new Map(Object.entries(env)))).pipe(
      Effect.either,
      Effect.map(Either.mapLeft(ConfigReport.lines))
    )
  const oidc = { OAUTH2_PROVIDER: "oidc", OAUTH2_CLIENT_ID: "app", OAUTH2_CLIENT_SECRET: "s3cret" }

  it.effect("takes a BASE_URL at the root of its host, and refuses one with a path on one line", () =>
    Effect.gen(function* () {
      const base = (value: string) =>
        Effect.map(
          loadServer({ ...oidc, OAUTH2_ISSUER_URL: "https://id.example.com", BASE_URL: value }),
          Either.map((c) => c.baseUrl)
        )
      expect(yield* base("https://auth.example.com/")).toEqual(Either.right("https://auth.example.com"))
      expect(yield* base("http://127.0.0.1:8080")).toEqual(Either.right("http://127.0.0.1:8080"))
      expect(yield* base("https://example.com/auth")).toEqual(
        Either.left(["BASE_URL: expected a URL without a path: the service answers at the root of its host"])
      )
    })
  )

  it.effect("takes an https issuer, or http on a loopback host, for the oidc upstream", () =>
    Effect.gen(function* () {
      for (const issuer of ["https://id.example.com", "http://127.0.0.1:9000/realms/dev"]) {
        const config = yield* loadServer({ ...oidc, OAUTH2_ISSUER_URL: issuer })
        expect(Either.map(config, (c) => c.issuerUrl)).toEqual(Either.right(Option.some(issuer)))
      }
    })
  )

  it.effect("refuses an issuer that is not a URL, or plain http elsewhere, on one line", () =>
    Effect.gen(function* () {
      for (const issuer of ["https://exa mple.com", "id.example.com", "http://id.example.com"]) {
        const config = yield* loadServer({ ...oidc, OAUTH2_ISSUER_URL: issuer })
        expect(config).toEqual(
          Either.left([
            "OAUTH2_ISSUER_URL: expected an https URL (http only for a loopback issuer, or with OUTBOUND_ALLOWED_PRIVATE_ADDRESSES set)"
          ])
        )
      }
    })
  )

  it.effect("takes a plain-http issuer inside the network once private addresses are allowed", () =>
    Effect.gen(function* () {
      const issuer = "http://keycloak.internal:8080/realms/acme"
      const config = yield* loadServer({
        ...oidc,
        OAUTH2_ISSUER_URL: issuer,
        OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "10.0.0.0/8,fd00::/8"
      })
      expect(Either.map(config, (c) => [c.issuerUrl, c.allowedPrivateAddresses.ranges])).toEqual(
        Either.right([Option.some(issuer), ["10.0.0.0/8", "fd00::/8"]])
      )
    })
  )

  it.effect("reaches no private address by default, and stops on a bad entry of the list", () =>
    Effect.gen(function* () {
      expect(Either.map(yield* loadServer({}), (c) => c.allowedPrivateAddresses.ranges)).toEqual(
        Either.right([])
      )
      expect(yield* loadServer({ OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1,10.0.0.0/40" })).toEqual(
        Either.left([
          "OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: expected comma-separated IP addresses and CIDR ranges, e.g. 10.0.0.0/8,fd00::/8,127.0.0.1: 10.0.0.0/40 has no prefix length of 0 to 32"
        ])
      )
    })
  )

  it.effect("refuses a CLI_CLIENT_ID that is no client id, and defaults to cli", () =>
    Effect.gen(function* () {
      expect(Either.map(yield* loadServer({}), (c) => c.cliClientId)).toEqual(Either.right("cli"))
      expect(yield* loadServer({ CLI_CLIENT_ID: "a b" })).toEqual(
        Either.left(["CLI_CLIENT_ID: expected 1 to 2048 printable ASCII characters without spaces"])
      )
    })
  )
})
