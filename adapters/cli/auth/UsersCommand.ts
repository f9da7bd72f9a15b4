import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as AuthError from "../../../application/auth/AuthError.js"
import { createUser } from "../../../application/auth/admin/CreateUser.js"
import { deleteUser } from "../../../application/auth/admin/DeleteUser.js"
import * as FindUser from "../../../application/auth/admin/FindUser.js"
import { listUsers } from "../../../application/auth/admin/ListUsers.js"
import * as ErrorResponse from "../../http/auth/ErrorResponse.js"
import * as CommandTree from "../CommandTree.js"
import * as SourceOptions from "./SourceOptions.js"

const email = Options.text("email").pipe(
  Options.withPseudoName("ADDRESS"),
  Options.optional,
  Options.withDescription("The user's email address")
)
const phone = Options.text("phone").pipe(
  Options.withPseudoName("NUMBER"),
  Options.optional,
  Options.withDescription("The user's phone number (E.164, such as +15551234567)")
)
const passwordEnv = Options.text("password-env").pipe(
  Options.withPseudoName("VARIABLE"),
  Options.optional,
  Options.withDescription(
    "Read the user's password from this environment variable (never from the command line); none: no password"
  )
)
const confirmed = Options.boolean("confirmed").pipe(
  Options.withDescription("Mark the email address and the phone number as confirmed already")
)

/** Failures of the admin use cases, in the words the admin API would answer with. */
const told = <A, E, R>(effect: Effect.Effect<A, E | AuthError.AuthError, R>) =>
  Effect.catchIf(effect, ErrorResponse.isReason, (reason) => {
    const answer = ErrorResponse.describe(reason)
    return Effect.fail(new Error(`${answer.code}: ${answer.message}`))
  })

const create = Command.make(
  "create",
  { email, phone, passwordEnv, confirmed, sources: SourceOptions.sources },
  (options) =>
    told(
      Effect.gen(function* () {
        const password = yield* Option.match(options.passwordEnv, {
          onNone: () => Effect.succeedNone,
          onSome: (variable) =>
            Effect.flatMap(Config.option(Config.redacted(variable)), (value) =>
              Option.isSome(value)
                ? Effect.succeed(Option.some(Redacted.value(value.value)))
                : Effect.fail(
                    new Error(`validation_failed: ${variable} is not set (--password-env names it)`)
                  )
            )
        })
        const created = yield* createUser({
          id: "",
          aud: "",
          role: "",
          email: Option.getOrElse(options.email, () => ""),
          phone: Option.getOrElse(options.phone, () => ""),
          password,
          passwordHash: "",
          emailConfirm: options.confirmed,
          phoneConfirm: options.confirmed,
          userMetadata: Option.none(),
          appMetadata: Option.none(),
          banDuration: ""
        })
        yield* Console.log(`created ${created.user.id}`)
      })
    )
).pipe(Command.withDescription("Create a user, as POST /admin/users does."))

const page = Options.integer("page").pipe(
  Options.withPseudoName("N"),
  Options.withDefault(1),
  Options.withDescription("Which page of users to show, from 1 (default: 1)")
)
const perPage = Options.integer("per-page").pipe(
  Options.withPseudoName("N"),
  Options.withDefault(50),
  Options.withDescription("How many users a page holds (default: 50)")
)

const filter = Options.text("filter").pipe(
  Options.withPseudoName("TEXT"),
  Options.withDefault(""),
  Options.withDescription("Only the users whose email address or full name contains TEXT (any case)")
)

const list = Command.make(
  "list",
  { page, perPage, filter, sources: SourceOptions.sources },
  ({ page, perPage, filter }) =>
    told(
      Effect.gen(function* () {
        const listed = yield* listUsers({
          page: Math.max(1, page),
          perPage: Math.max(1, perPage),
          order: "desc",
          filter
        })
        yield* Console.log(["id", "email", "phone", "created", "last sign-in"].join("\t"))
        for (const { user } of listed.users) {
          yield* Console.log(
            [
              user.id,
              // A soft-deleted user is listed too, their address gone: said in its place.
              Option.isSome(user.deletedAt) ? "(deleted)" : Option.getOrElse(user.email, () => "-"),
              Option.getOrElse(user.phone, () => "-"),
              user.createdAt.toISOString(),
              Option.match(user.lastSignInAt, { onNone: () => "-", onSome: (at) => at.toISOString() })
            ].join("\t")
          )
        }
        yield* Console.log(`${listed.total} ${listed.total === 1 ? "user" : "users"}`)
      })
    )
).pipe(Command.withDescription("List users, newest first, as GET /admin/users does."))

const userId = Args.text({ name: "USER_ID" }).pipe(
  Args.withDescription("The id of the user to delete (a UUID, as `latchkey auth users list` shows it)")
)
const soft = Options.boolean("soft").pipe(
  Options.withDescription("Keep the user's row with its identifying data removed (a soft delete)")
)

const remove = Command.make("delete", { userId, soft, sources: SourceOptions.sources }, ({ userId, soft }) =>
  told(
    Effect.gen(function* () {
      yield* deleteUser(yield* FindUser.parseId(userId), soft)
      yield* Console.log(`deleted ${userId}${soft ? " (soft)" : ""}`)
    })
  )
).pipe(Command.withDescription("Delete a user and their sessions, as DELETE /admin/users/{id} does."))

/** What the users commands run with: the admin API's use cases' services. */
export type Services = CommandTree.Needs<typeof create | typeof list | typeof remove>

/**
 * `latchkey auth users`, each command given `services` once its words have parsed, read from the
 * sources its options name.
 */
export const command = <E>(services: (sources: SourceOptions.Sources) => Layer.Layer<Services, E>) =>
  CommandTree.group("users", "The auth service's users, through the admin API's use cases.", [
    CommandTree.leaf(Command.provide(create, ({ sources }) => services(sources))),
    CommandTree.leaf(Command.provide(list, ({ sources }) => services(sources))),
    CommandTree.leaf(Command.provide(remove, ({ sources }) => services(sources)))
  ])
