import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { addKey } from "../../../application/auth/keys/AddKey.js"
import { type ApiKeysUnavailable, apiKeys } from "../../../application/auth/keys/ApiKeys.js"
import { listKeys } from "../../../application/auth/keys/ListKeys.js"
import { retireKey } from "../../../application/auth/keys/RetireKey.js"
import { rotateKeys } from "../../../application/auth/keys/RotateKeys.js"
import * as SigningKey from "../../../domain/auth/SigningKey.js"
import * as CommandTree from "../CommandTree.js"
import * as SourceOptions from "./SourceOptions.js"

const when = (at: Option.Option<Date>) =>
  Option.match(at, { onNone: () => "-", onSome: (date) => date.toISOString() })

const list = Command.make("list", { sources: SourceOptions.sources }, () =>
  Effect.gen(function* () {
    const keys = yield* listKeys
    yield* Console.log(["kid", "alg", "status", "signs", "published", "created", "verifies until"].join("\t"))
    for (const key of keys) {
      yield* Console.log(
        [
          key.kid,
          key.algorithm,
          key.phase,
          key.signs ? "yes" : "no",
          key.published ? "yes" : "no",
          when(key.createdAt),
          when(key.verifiesUntil)
        ].join("\t")
      )
    }
  })
).pipe(Command.withDescription("The signing keys: configured ones, then stored ones, oldest first."))

const algorithm = Options.choice("alg", ["RS256", "ES256", "EdDSA"]).pipe(
  Options.withDefault("RS256"),
  Options.withDescription("The new key's algorithm, one AUTHSVC_JWT_VALID_METHODS allows (default: RS256)")
)

const add = Command.make("add", { algorithm, sources: SourceOptions.sources }, ({ algorithm }) =>
  Effect.gen(function* () {
    const key = yield* addKey(algorithm)
    yield* Console.log(
      `added ${key.kid} (${key.algorithm}) on standby: published now, signing after \`keys rotate\``
    )
  })
).pipe(Command.withDescription("Add a standby key: published in the JWKS at once, signing after a rotation."))

const rotate = Command.make("rotate", { sources: SourceOptions.sources }, () =>
  Effect.gen(function* () {
    const rotation = yield* rotateKeys
    yield* Console.log(`${rotation.current} signs now (within the instances' key cache time)`)
    if (Option.isSome(rotation.previous)) {
      yield* Console.log(`${rotation.previous.value} verifies until the tokens it signed have expired`)
    }
    if (Duration.lessThan(rotation.publishedFor, Duration.minutes(10))) {
      yield* Console.log(
        "warning: the new key was published less than 10 minutes ago; clients holding an older JWKS fetch it again on an unknown kid"
      )
    }
  })
).pipe(Command.withDescription("The standby key starts signing; the current one keeps verifying its tokens."))

const kid = Args.text({ name: "KID" }).pipe(
  Args.withDescription("The key to retire, by its kid as `latchkey auth keys list` shows it")
)

const retire = Command.make("retire", { kid, sources: SourceOptions.sources }, ({ kid }) =>
  Effect.gen(function* () {
    yield* retireKey(SigningKey.Kid.make(kid))
    yield* Console.log(`retired ${kid}: no longer published, its tokens no longer verify`)
  })
).pipe(Command.withDescription("Retire a key that does not sign (the current one cannot be retired)."))

/** What the signing-key commands run with: the signing keys' settings and store. */
export type Services = CommandTree.Needs<typeof list | typeof add | typeof rotate | typeof retire>

/** What `keys api` says when no keys can be made, naming what to set. */
const unavailable: Readonly<Record<ApiKeysUnavailable["reason"], string>> = {
  no_secret:
    "AUTHSVC_JWT_SECRET is unset: API keys are HS256 JWTs the service checks with that secret. Set it (or GOTRUE_JWT_SECRET) to the same value of at least 32 random characters on every instance, for example the output of `openssl rand -base64 32`, restart them, and run this again",
  hs256_not_accepted:
    "AUTHSVC_JWT_VALID_METHODS leaves out HS256: the service would refuse API keys, which are HS256 JWTs. Add HS256 to it and run this again"
}

const api = Command.make("api", { sources: SourceOptions.sources }, () =>
  Effect.gen(function* () {
    const keys = yield* apiKeys.pipe(
      Effect.catchTag("ApiKeysUnavailable", (refused) => Effect.fail(new Error(unavailable[refused.reason])))
    )
    yield* Console.log(`anon key: ${Redacted.value(keys.anon)}`)
    yield* Console.log(`service_role key: ${Redacted.value(keys.serviceRole)}`)
    yield* Console.log(
      `HS256 JWTs signed with AUTHSVC_JWT_SECRET, valid until ${keys.expiresAt.toISOString()}: every instance with that secret accepts them, and a new secret revokes them`
    )
    if (!keys.serviceRoleIsAdmin) {
      yield* Console.log(
        "warning: AUTHSVC_JWT_ADMIN_ROLES does not name service_role: the service_role key cannot call the admin API"
      )
    }
  })
).pipe(
  Command.withDescription(
    "Print the anon and service_role API keys for AUTHSVC_JWT_SECRET, as `supabase status` prints a project's keys."
  )
)

/** What `keys api` runs with: the JWT settings and the admin roles; no database. */
export type ApiServices = CommandTree.Needs<typeof api>

/**
 * `latchkey auth keys`, each command given what it runs with once its words have parsed, read
 * from the sources its options name:
 * `services` the signing-key commands (the database), `configured` `keys api` (the
 * configuration alone).
 */
export const command = <E1, E2>(
  services: (sources: SourceOptions.Sources) => Layer.Layer<Services, E1>,
  configured: (sources: SourceOptions.Sources) => Layer.Layer<ApiServices, E2>
) =>
  CommandTree.group(
    "keys",
    "The auth service's JWT signing keys, stored in its database, and the API keys for its JWT secret.",
    [
      CommandTree.leaf(Command.provide(list, ({ sources }) => services(sources))),
      CommandTree.leaf(Command.provide(add, ({ sources }) => services(sources))),
      CommandTree.leaf(Command.provide(rotate, ({ sources }) => services(sources))),
      CommandTree.leaf(Command.provide(retire, ({ sources }) => services(sources))),
      CommandTree.leaf(Command.provide(api, ({ sources }) => configured(sources)))
    ]
  )
