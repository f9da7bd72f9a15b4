import * as Context from "effect/Context"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type { WithIdentities } from "../../../application/auth/ports/UserRepository.js"
import type { SealedSecret } from "../../../application/ports/Secrets.js"
import type { Session, SessionId } from "../../../domain/auth/Session.js"
import type { Identity } from "../../../domain/Identity.js"
import type { IdentityId, SecretHash, UserId } from "../../../domain/Ids.js"
import type { User } from "../../../domain/User.js"

/** A user row: the user, and what the `User` model does not carry. */
export interface UserRow {
  readonly user: User
  readonly passwordHash: Option.Option<string>
}

export interface RefreshTokenRow {
  readonly sessionId: SessionId
  readonly generation: number
  readonly revoked: boolean
  readonly sealedChild: Option.Option<SealedSecret>
  /** When the row last changed (issued, retired, its sealed child let go), as `updated_at`. */
  readonly updatedAt: Date
}

/**
 * The auth service's tables behind one Ref, so that every transition (a user with its
 * identity, a rotation with its child token, a soft delete with the user's sessions) is one
 * atomic `Ref.modify`, as it is one transaction in Postgres.
 */
export interface Tables {
  readonly users: HashMap.HashMap<UserId, UserRow>
  readonly identities: HashMap.HashMap<IdentityId, Identity>
  readonly sessions: HashMap.HashMap<SessionId, Session>
  readonly refreshTokens: HashMap.HashMap<SecretHash, RefreshTokenRow>
}

export const live = (row: UserRow) => Option.isNone(row.user.deletedAt)

/** The user's row while they are live (not soft-deleted). */
export const liveUser = (tables: Tables, id: UserId) => Option.filter(HashMap.get(tables.users, id), live)

/** The user's identities, oldest first. */
export const identitiesOf = (tables: Tables, id: UserId) =>
  [...HashMap.values(tables.identities)]
    .filter((identity) => identity.userId === id)
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))

/** The live user with their identities, as `UserRepository.findWithIdentities` reads them. */
export const accountOf = (tables: Tables, id: UserId): Option.Option<WithIdentities> =>
  Option.map(liveUser(tables, id), (row) => ({ user: row.user, identities: identitiesOf(tables, id) }))

export const empty: Tables = {
  users: HashMap.empty(),
  identities: HashMap.empty(),
  sessions: HashMap.empty(),
  refreshTokens: HashMap.empty()
}

export class AuthMemoryState extends Context.Tag("latchkey/memory/auth/AuthMemoryState")<
  AuthMemoryState,
  Ref.Ref<Tables>
>() {}

export const layer = Layer.effect(AuthMemoryState, Ref.make(empty))
