import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { addKey } from "../../../application/auth/keys/AddKey.js"
import { listKeys } from "../../../application/auth/keys/ListKeys.js"
import { retireKey } from "../../../application/auth/keys/RetireKey.js"
import { rotateKeys } from "../../../application/auth/keys/RotateKeys.js"
import * as SigningKey from "../../../domain/auth/SigningKey.js"
import * as CommandTree from "../CommandTree.js"

const when = (at: Option.Option<Date>) =>
  Option.match(at, { onNone: () => "-", onSome: (date) => date.toISOString() })

const list = Command.make("list", {}, () =>
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

const add = Command.make("add", { algorithm }, ({ algorithm }) =>
  Effect.gen(function* () {
    const key = yield* addKey(algorithm)
    yield* Console.log(
      `added ${key.kid} (${key.algorithm}) on standby: published now, signing after \`keys rotate\``
    )
  })
).pipe(Command.withDescription("Add a standby key: published in the JWKS at once, signing after a rotation."))

const rotate = Command.make("rotate", {}, () =>
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

const retire = Command.make("retire", { kid }, ({ kid }) =>
  Effect.gen(function* () {
    yield* retireKey(SigningKey.Kid.make(kid))
    yield* Console.log(`retired ${kid}: no longer published, its tokens no longer verify`)
  })
).pipe(Command.withDescription("Retire a key that does not sign (the current one cannot be retired)."))

/** What the keys commands run with: the signing keys' settings and store. */
export type Services = CommandTree.Needs<typeof list | typeof add | typeof rotate | typeof retire>

/** `latchkey auth keys`, each command given `services` once its words have parsed. */
export const command = <E>(services: Layer.Layer<Services, E>) =>
  CommandTree.group("keys", "The auth service's JWT signing keys, stored in its database.", [
    CommandTree.leaf(Command.provide(list, services)),
    CommandTree.leaf(Command.provide(add, services)),
    CommandTree.leaf(Command.provide(rotate, services)),
    CommandTree.leaf(Command.provide(retire, services))
  ])
