import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import {
  type ChangeOutcome,
  EmailExists,
  IdentityExists,
  PhoneExists,
  UserNotFound,
  type UserPatch,
  UserRepository
} from "../../../application/auth/ports/UserRepository.js"
import * as PendingChange from "../../../domain/auth/PendingChange.js"
import * as SessionModel from "../../../domain/auth/Session.js"
import { Identity } from "../../../domain/Identity.js"
import type { UserId } from "../../../domain/Ids.js"
import { emailConfirmed, User } from "../../../domain/User.js"
import {
  AuthMemoryState,
  accountOf,
  identitiesOf,
  live,
  liveUser,
  type Tables,
  type UserRow
} from "./AuthMemoryState.js"

// As Postgres generates `identities.email`: the provider's `email`, lower-cased.
const withGeneratedEmail = (identity: Identity) => {
  const email = identity.identityData.email
  return new Identity({
    ...identity,
    email: typeof email === "string" ? Option.some(email.trim().toLowerCase()) : Option.none()
  })
}

/** The account at the provider is linked to a user already. */
const identityTaken = (tables: Tables, identity: Identity): Option.Option<IdentityExists> =>
  [...HashMap.values(tables.identities)].some(
    (other) => other.provider === identity.provider && other.providerId === identity.providerId
  )
    ? Option.some(new IdentityExists({ provider: identity.provider, providerId: identity.providerId }))
    : Option.none()

/** The first unique rule `user` would break among the other users. */
const conflict = (tables: Tables, user: User): Option.Option<EmailExists | PhoneExists> => {
  for (const row of HashMap.values(tables.users)) {
    if (row.user.id === user.id) continue
    if (Option.isSome(user.email) && Option.contains(row.user.email, user.email.value)) {
      return Option.some(new EmailExists({ email: user.email.value }))
    }
    if (Option.isSome(user.phone) && Option.contains(row.user.phone, user.phone.value)) {
      return Option.some(new PhoneExists({ phone: user.phone.value }))
    }
  }
  return Option.none()
}

/** Applies `change` to a live user, or fails with UserNotFound; one atomic step. */
const changeUser = <E>(
  state: AuthMemoryState["Type"],
  id: UserId,
  change: (row: UserRow, tables: Tables) => Either.Either<Tables, E>
): Effect.Effect<Tables, E | UserNotFound> =>
  Effect.flatten(
    Ref.modify(state, (tables): [Effect.Effect<Tables, E | UserNotFound>, Tables] => {
      const row = Option.filter(HashMap.get(tables.users, id), live)
      if (Option.isNone(row)) return [Effect.fail(new UserNotFound({ userId: id })), tables]
      return Either.match(change(row.value, tables), {
        onLeft: (error) => [Effect.fail(error), tables],
        onRight: (after) => [Effect.succeed(after), after]
      })
    })
  )

/** A live user's password hash set (some) or removed (none), with the fields of `also`. */
const storePassword = (
  state: AuthMemoryState["Type"],
  id: UserId,
  hash: Option.Option<string>,
  also: UserPatch,
  now: Date
) =>
  Effect.asVoid(
    changeUser(state, id, (row, tables) =>
      Either.right({
        ...tables,
        users: HashMap.set(tables.users, id, {
          ...row,
          passwordHash: hash,
          user: new User({ ...row.user, ...also, updatedAt: now })
        })
      })
    )
  )

/** The user as the tables just written hold them. */
const userIn = (id: UserId) => (after: Tables) =>
  Option.match(HashMap.get(after.users, id), {
    onNone: () => Effect.dieMessage("an updated user is missing"),
    onSome: (row) => Effect.succeed(row.user)
  })

/** The tables without these users and what is theirs, as the database's cascades leave them. */
const withoutUsers = (tables: Tables, ids: ReadonlyArray<UserId>): Tables => {
  const gone = new Set(ids)
  const sessions = HashMap.filter(tables.sessions, (session) => !gone.has(session.userId))
  return {
    users: HashMap.filter(tables.users, (_, id) => !gone.has(id)),
    identities: HashMap.filter(tables.identities, (identity) => !gone.has(identity.userId)),
    sessions,
    refreshTokens: HashMap.filter(tables.refreshTokens, (token) => HashMap.has(sessions, token.sessionId))
  }
}

/**
 * The admin list's `filter` (PageRequest): in the email or `full_name`, case ignored. A
 * `full_name` is read as Postgres's `->>` reads it for text, numbers and booleans; an object
 * or a list (its JSON text there) no client writes as a name.
 */
const matches = (filter: string) => {
  const wanted = filter.toLowerCase()
  return (user: User) => {
    const fullName = user.userMetadata.full_name
    const name =
      typeof fullName === "string" || typeof fullName === "number" || typeof fullName === "boolean"
        ? String(fullName)
        : undefined
    return (
      Option.exists(user.email, (email) => email.toLowerCase().includes(wanted)) ||
      name?.toLowerCase().includes(wanted) === true
    )
  }
}

const byCreation = (order: "asc" | "desc") => (a: User, b: User) => {
  const difference = a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id)
  return order === "asc" ? difference : -difference
}

export const layer = Layer.effect(
  UserRepository,
  Effect.gen(function* () {
    const state = yield* AuthMemoryState
    // Factors are kept by the factor store's memory adapter; read through it, as Postgres reads
    // the user's factors in the signed-in statement.
    const factors = yield* FactorStore
    const read = <A>(f: (tables: Tables) => A) => Effect.map(Ref.get(state), f)

    /** What `found` found with its user's factors, as the one read of a user's account gives them. */
    const withFactors = <A extends { readonly user: User }>(found: Effect.Effect<Option.Option<A>>) =>
      Effect.flatMap(found, (account) =>
        Option.match(account, {
          onNone: () => Effect.succeed(Option.none()),
          onSome: (account) =>
            Effect.map(factors.list(account.user.id), (listed) =>
              Option.some({ ...account, factors: listed })
            )
        })
      )

    /** The first live user that `matches`. */
    const findLive = (matches: (user: User) => boolean) =>
      read((tables) =>
        Option.map(
          Option.fromNullable(
            [...HashMap.values(tables.users)].find((row) => live(row) && matches(row.user))
          ),
          (row) => row.user
        )
      )

    return {
      insert: (user, identities, passwordHash) =>
        identities.some((identity) => identity.userId !== user.id)
          ? Effect.dieMessage("an identity inserted with a user must belong to it")
          : Effect.flatten(
              Ref.modify(
                state,
                (tables): [Effect.Effect<void, EmailExists | PhoneExists | IdentityExists>, Tables] => {
                  const taken = conflict(tables, user)
                  if (Option.isSome(taken)) return [Effect.fail(taken.value), tables]
                  for (const identity of identities) {
                    const linked = identityTaken(tables, identity)
                    if (Option.isSome(linked)) return [Effect.fail(linked.value), tables]
                  }
                  return [
                    Effect.void,
                    {
                      ...tables,
                      users: HashMap.set(tables.users, user.id, { user, passwordHash }),
                      identities: identities.reduce(
                        (all, identity) => HashMap.set(all, identity.id, withGeneratedEmail(identity)),
                        tables.identities
                      )
                    }
                  ]
                }
              )
            ),
      addIdentity: (identity) =>
        Effect.flatten(
          Ref.modify(state, (tables): [Effect.Effect<void, UserNotFound | IdentityExists>, Tables] => {
            if (Option.isNone(liveUser(tables, identity.userId))) {
              return [Effect.fail(new UserNotFound({ userId: identity.userId })), tables]
            }
            const linked = identityTaken(tables, identity)
            if (Option.isSome(linked)) return [Effect.fail(linked.value), tables]
            return [
              Effect.void,
              {
                ...tables,
                identities: HashMap.set(tables.identities, identity.id, withGeneratedEmail(identity))
              }
            ]
          })
        ),
      findById: (id) => read((tables) => Option.map(liveUser(tables, id), (row) => row.user)),
      findByEmail: (email) => findLive((user) => Option.contains(user.email, email)),
      findByPhone: (phone) => findLive((user) => Option.contains(user.phone, phone)),
      findByPendingEmail: (email) => findLive((user) => Option.contains(user.emailChange, email)),
      findByPendingPhone: (phone) => findLive((user) => Option.contains(user.phoneChange, phone)),
      findByIdentity: (provider, providerId) =>
        read((tables) =>
          Option.flatMap(
            Option.fromNullable(
              [...HashMap.values(tables.identities)].find(
                (identity) => identity.provider === provider && identity.providerId === providerId
              )
            ),
            (identity) =>
              Option.map(liveUser(tables, identity.userId), (row) => ({ user: row.user, identity }))
          )
        ),
      refreshIdentity: (id, data, now) =>
        Ref.update(state, (tables) =>
          Option.match(
            Option.filter(HashMap.get(tables.identities, id), (identity) =>
              Option.isSome(liveUser(tables, identity.userId))
            ),
            {
              onNone: () => tables,
              onSome: (identity) => ({
                ...tables,
                identities: HashMap.set(
                  tables.identities,
                  id,
                  withGeneratedEmail(
                    new Identity({
                      ...identity,
                      identityData: { ...data },
                      updatedAt: now,
                      lastSignInAt: Option.some(now)
                    })
                  )
                )
              })
            }
          )
        ),
      mergeIdentityData: (userId, provider, data, now) =>
        Ref.modify(state, (tables): [boolean, Tables] => {
          const found = [...HashMap.values(tables.identities)].find(
            (identity) => identity.userId === userId && identity.provider === provider
          )
          if (found === undefined) return [false, tables]
          const merged = withGeneratedEmail(
            new Identity({ ...found, identityData: { ...found.identityData, ...data }, updatedAt: now })
          )
          return [true, { ...tables, identities: HashMap.set(tables.identities, found.id, merged) }]
        }),
      removeIdentity: (userId, identityId) =>
        Ref.modify(state, (tables): [boolean, Tables] => {
          const found = Option.filter(
            HashMap.get(tables.identities, identityId),
            (identity) => identity.userId === userId
          )
          return Option.isNone(found)
            ? [false, tables]
            : [true, { ...tables, identities: HashMap.remove(tables.identities, identityId) }]
        }),
      identitiesOf: (id) =>
        read((tables) => (Option.isNone(liveUser(tables, id)) ? [] : identitiesOf(tables, id))),
      findWithIdentities: (id) => read((tables) => accountOf(tables, id)),
      findSignedIn: (id, session) =>
        withFactors(
          read((tables) =>
            Option.map(accountOf(tables, id), (account) => ({
              ...account,
              session: Option.flatMap(session, (sessionId) => HashMap.get(tables.sessions, sessionId))
            }))
          )
        ),
      findAccount: (id) =>
        withFactors(
          read((tables) =>
            Option.map(HashMap.get(tables.users, id), (row) => ({
              user: row.user,
              identities: identitiesOf(tables, id)
            }))
          )
        ),
      findPasswordHash: (id) =>
        read((tables) => Option.flatMap(liveUser(tables, id), (row) => row.passwordHash)),
      update: (id, patch, now) =>
        changeUser(state, id, (row, tables) => {
          const changes = typeof patch === "function" ? patch(row.user) : patch
          const user = new User({ ...row.user, ...changes, updatedAt: now })
          const taken = conflict(tables, user)
          return Option.isSome(taken)
            ? Either.left(taken.value)
            : Either.right({ ...tables, users: HashMap.set(tables.users, id, { ...row, user }) })
        }).pipe(Effect.flatMap(userIn(id))),
      confirmEmail: (id, { identities }, now) =>
        changeUser(state, id, (row, tables) => {
          const user = new User({
            ...row.user,
            ...emailConfirmed(row.user.userMetadata, now),
            updatedAt: now
          })
          const marked = HashMap.map(tables.identities, (identity) =>
            identities &&
            identity.userId === id &&
            Option.isSome(user.email) &&
            Option.contains(identity.email, user.email.value)
              ? new Identity({
                  ...identity,
                  identityData: { ...identity.identityData, email_verified: true },
                  updatedAt: now
                })
              : identity
          )
          return Either.right({
            ...tables,
            users: HashMap.set(tables.users, id, { ...row, user }),
            identities: marked
          })
        }).pipe(Effect.flatMap(userIn(id))),
      confirmChange: ({ userId, field, needed, identity, now }) =>
        Effect.gen(function* () {
          let outcome: ChangeOutcome = { _tag: "NothingPending" }
          yield* changeUser(state, userId, (row, tables) => {
            const decision = PendingChange.confirm(row.user, field, needed, now)
            if (decision._tag === "NothingPending") return Either.right(tables)
            const taken = conflict(tables, decision.user)
            if (Option.isSome(taken)) return Either.left(taken.value)
            outcome = decision._tag === "Waiting" ? { _tag: "Waiting" } : decision
            const users = HashMap.set(tables.users, userId, { ...row, user: decision.user })
            if (decision._tag === "Waiting") return Either.right({ ...tables, users })
            const existing = identitiesOf(tables, userId).find(
              (known) => known.provider === identity.provider
            )
            const carried =
              existing === undefined
                ? identity
                : new Identity({
                    ...existing,
                    identityData: { ...existing.identityData, ...identity.identityData },
                    updatedAt: now
                  })
            return Either.right({
              ...tables,
              users,
              identities: HashMap.set(tables.identities, carried.id, withGeneratedEmail(carried))
            })
          })
          return outcome
        }),
      setPasswordHash: (id, hash, now) => storePassword(state, id, hash, {}, now),
      changePassword: (id, hash, now) =>
        storePassword(
          state,
          id,
          Option.some(hash),
          {
            confirmationSentAt: Option.none(),
            recoverySentAt: Option.none(),
            emailChangeSentAt: Option.none(),
            phoneChangeSentAt: Option.none(),
            reauthenticationSentAt: Option.none()
          },
          now
        ),
      recordSignIn: (id, identityId, now) =>
        Effect.zipRight(
          changeUser(state, id, (row, tables) =>
            Either.right({
              ...tables,
              users: HashMap.set(tables.users, id, {
                ...row,
                user: new User({ ...row.user, lastSignInAt: Option.some(now), updatedAt: now })
              }),
              identities: Option.match(
                Option.filter(
                  Option.flatMap(identityId, (key) => HashMap.get(tables.identities, key)),
                  (identity) => identity.userId === id
                ),
                {
                  onNone: () => tables.identities,
                  onSome: (identity) =>
                    HashMap.set(
                      tables.identities,
                      identity.id,
                      new Identity({ ...identity, lastSignInAt: Option.some(now), updatedAt: now })
                    )
                }
              )
            })
          ),
          Effect.zipWith(
            read((tables) => identitiesOf(tables, id)),
            factors.list(id),
            (identities, listed) => ({
              identities,
              factors: listed
            })
          )
        ),
      softDelete: (id, now) =>
        Effect.asVoid(
          changeUser(state, id, (row, tables) =>
            Either.right({
              ...tables,
              users: HashMap.set(tables.users, id, {
                passwordHash: Option.none(),
                user: new User({
                  ...row.user,
                  email: Option.none(),
                  phone: Option.none(),
                  emailChange: Option.none(),
                  phoneChange: Option.none(),
                  appMetadata: {},
                  userMetadata: {},
                  deletedAt: Option.some(now),
                  updatedAt: now
                })
              }),
              // The identity's own id stands in for the subject, which frees the upstream account.
              identities: HashMap.map(tables.identities, (identity) =>
                identity.userId === id
                  ? new Identity({
                      ...identity,
                      providerId: identity.id,
                      identityData: {},
                      email: Option.none(),
                      updatedAt: now
                    })
                  : identity
              ),
              sessions: HashMap.map(tables.sessions, (session) =>
                session.userId === id ? SessionModel.revoke(session, now) : session
              )
            })
          )
        ).pipe(
          // Soft-deleted already: nothing more to clear, as in Supabase Auth.
          Effect.catchTag("UserNotFound", (error) =>
            Effect.flatMap(
              read((tables) => HashMap.has(tables.users, id)),
              (kept) => (kept ? Effect.void : Effect.fail(error))
            )
          )
        ),
      delete: (id) =>
        Ref.modify(state, (tables): [Effect.Effect<void, UserNotFound>, Tables] =>
          HashMap.has(tables.users, id)
            ? [Effect.void, withoutUsers(tables, [id])]
            : [Effect.fail(new UserNotFound({ userId: id })), tables]
        ).pipe(Effect.flatten),
      reapAnonymous: (createdBefore, limit) =>
        Ref.modify(state, (tables): [number, Tables] => {
          const reaped = [...HashMap.values(tables.users)]
            .filter((row) => row.user.isAnonymous && row.user.createdAt < createdBefore)
            .slice(0, limit)
            .map((row) => row.user.id)
          return [reaped.length, withoutUsers(tables, reaped)]
        }),
      list: ({ aud, order, page, perPage, filter }) =>
        read((tables) => {
          const users = [...HashMap.values(tables.users)]
            .filter((row) => row.user.aud === aud)
            .map((row) => row.user)
            .filter(filter === "" ? () => true : matches(filter))
            .sort(byCreation(order))
          const start = (page - 1) * perPage
          return { users: users.slice(start, start + perPage), total: users.length }
        })
    }
  })
)
