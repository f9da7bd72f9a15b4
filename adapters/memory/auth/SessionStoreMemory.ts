import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import { SessionStore, type WithAccount } from "../../../application/auth/ports/SessionStore.js"
import type { Account, WithIdentities } from "../../../application/auth/ports/UserRepository.js"
import * as Assurance from "../../../domain/auth/Assurance.js"
import * as Factor from "../../../domain/auth/Factor.js"
import * as Session from "../../../domain/auth/Session.js"
import type { SecretHash } from "../../../domain/Ids.js"
import { AuthMemoryState, accountOf, type RefreshTokenRow, type Tables } from "./AuthMemoryState.js"

/** Revokes the sessions `which` picks, with their tokens' sealed children; how many were live. */
const revokeWhere = (
  tables: Tables,
  which: (session: Session.Session) => boolean,
  now: Date
): [number, Tables] => {
  let count = 0
  const sessions = HashMap.map(tables.sessions, (session) => {
    if (!which(session) || Option.isSome(session.revokedAt)) return session
    count++
    return Session.revoke(session, now)
  })
  const refreshTokens = HashMap.map(tables.refreshTokens, (token) =>
    Option.exists(HashMap.get(sessions, token.sessionId), (session) => Option.isSome(session.revokedAt))
      ? letGo(token, now)
      : token
  )
  return [count, { ...tables, sessions, refreshTokens }]
}

/**
 * Deletes up to `limit` of the sessions `which` picks, with their tokens; how many. Memory holds
 * no locks: nothing to pass over.
 */
const deleteWhere = (
  tables: Tables,
  which: (session: Session.Session) => boolean,
  limit: number
): [number, Tables] => {
  const picked = [...HashMap.values(tables.sessions)]
    .filter(which)
    .slice(0, limit)
    .map((session) => session.id)
  const gone = new Set(picked)
  return [
    picked.length,
    {
      ...tables,
      sessions: HashMap.removeMany(tables.sessions, picked),
      refreshTokens: HashMap.filter(tables.refreshTokens, (token) => !gone.has(token.sessionId))
    }
  ]
}

/**
 * A token retired with no sealed child, as `RefreshTokens.letGoOfText` leaves it: stamped only
 * when that changes it, so that a token retired long ago keeps its age.
 */
const letGo = (token: RefreshTokenRow, now: Date): RefreshTokenRow =>
  token.revoked && Option.isNone(token.sealedChild)
    ? token
    : { ...token, revoked: true, sealedChild: Option.none(), updatedAt: now }

/** What a step of the tables answers: the session with its user and identities, factors to come. */
interface Stepped {
  readonly session: Session.Session
  readonly account: Option.Option<WithIdentities>
}

export const layer = Layer.effect(
  SessionStore,
  Effect.gen(function* () {
    const state = yield* AuthMemoryState
    // Factors are kept by the factor store's memory adapter: the account read after the step
    // takes the user's from it, as Postgres reads them in the step's statement.
    const factors = yield* FactorStore
    const accountWithFactors = (account: Option.Option<WithIdentities>) =>
      Option.match(account, {
        onNone: () => Effect.succeed(Option.none<Account>()),
        onSome: (found) =>
          Effect.map(factors.list(found.user.id), (listed) => Option.some({ ...found, factors: listed }))
      })
    /** The level the user of the presented token can reach, by their factors; aal1 for no token. */
    const highestOf = (presented: SecretHash) =>
      Effect.flatMap(Ref.get(state), (tables) =>
        Option.match(
          Option.flatMap(HashMap.get(tables.refreshTokens, presented), (token) =>
            HashMap.get(tables.sessions, token.sessionId)
          ),
          {
            onNone: () => Effect.succeed<Session.Aal>("aal1"),
            onSome: (session) => Effect.map(factors.list(session.userId), Factor.highestPossibleAal)
          }
        )
      )
    const withFactors = <A extends Stepped>(found: Option.Option<A>) =>
      Option.match(found, {
        onNone: () => Effect.succeed(Option.none<Omit<A, "account"> & WithAccount>()),
        onSome: (stepped) =>
          Effect.map(accountWithFactors(stepped.account), (account) => Option.some({ ...stepped, account }))
      })
    return {
      start: (session, firstToken) =>
        Ref.update(state, (tables) => ({
          ...tables,
          sessions: HashMap.set(tables.sessions, session.id, session),
          refreshTokens: HashMap.set(tables.refreshTokens, firstToken, {
            sessionId: session.id,
            generation: 0,
            revoked: false,
            sealedChild: Option.none(),
            updatedAt: session.createdAt
          })
        })),
      // One `Ref.modify`: the check and the writes are one step, as the statement is in Postgres;
      // the user's level, from the factor store's adapter, is read just before.
      rotate: ({ child, cutoffs, now, presented, sealed }) =>
        Effect.flatMap(highestOf(presented), (highest) =>
          Ref.modify(state, (tables): [Option.Option<Stepped>, Tables] => {
            const token = HashMap.get(tables.refreshTokens, presented)
            const live = Option.flatMap(token, ({ generation, sessionId }) =>
              Option.filter(
                HashMap.get(tables.sessions, sessionId),
                (session) =>
                  Option.isNone(session.revokedAt) &&
                  session.generation === generation &&
                  Session.meets(session, cutoffs, highest)
              )
            )
            if (Option.isNone(live)) return [Option.none(), tables]
            const session = live.value
            const rotated = Session.rotate(session, now)
            // The presented token now holds the sealed child; an older one lets its go.
            const retired = HashMap.map(tables.refreshTokens, (row, hash) =>
              row.sessionId !== session.id
                ? row
                : hash === presented
                  ? { ...row, revoked: true, sealedChild: sealed, updatedAt: now }
                  : Option.isSome(row.sealedChild)
                    ? { ...row, sealedChild: Option.none(), updatedAt: now }
                    : row
            )
            return [
              Option.some({ session: rotated, account: accountOf(tables, session.userId) }),
              {
                ...tables,
                sessions: HashMap.set(tables.sessions, session.id, rotated),
                refreshTokens: HashMap.set(retired, child, {
                  sessionId: session.id,
                  generation: rotated.generation,
                  revoked: false,
                  sealedChild: Option.none(),
                  updatedAt: now
                })
              }
            ]
          })
        ).pipe(Effect.flatMap(withFactors)),
      // Memory has no locks: each step of the caller's decision is one `Ref` step, and the
      // rotation it may end in checks again that the token is live.
      lockPresented: (presented) =>
        Effect.map(Ref.get(state), (tables) =>
          Option.flatMap(HashMap.get(tables.refreshTokens, presented), (token) =>
            Option.map(HashMap.get(tables.sessions, token.sessionId), (session) => ({
              session,
              account: accountOf(tables, session.userId),
              generation: token.generation,
              sealedChild: token.sealedChild
            }))
          )
        ).pipe(Effect.flatMap(withFactors)),
      // One `Ref.modify`, as `rotate`: raises of one session follow one another.
      raise: ({ child, factorId, factorType, now, sessionId }) =>
        Ref.modify(state, (tables): [Option.Option<Stepped>, Tables] => {
          const live = Option.filter(HashMap.get(tables.sessions, sessionId), (session) =>
            Option.isNone(session.revokedAt)
          )
          if (Option.isNone(live)) return [Option.none(), tables]
          const raised = Assurance.raise(live.value, factorId, factorType, now)
          const [, signedOut] = revokeWhere(
            tables,
            (session) =>
              session.userId === raised.userId &&
              session.id !== sessionId &&
              Assurance.signedOutByVerify(session),
            now
          )
          // Every token of the session retires and keeps no child: nothing may reissue the new one.
          const retired = HashMap.map(signedOut.refreshTokens, (row) =>
            row.sessionId === sessionId ? letGo(row, now) : row
          )
          return [
            Option.some({ session: raised, account: accountOf(tables, raised.userId) }),
            {
              ...signedOut,
              sessions: HashMap.set(signedOut.sessions, sessionId, raised),
              refreshTokens: HashMap.set(retired, child, {
                sessionId,
                generation: raised.generation,
                revoked: false,
                sealedChild: Option.none(),
                updatedAt: now
              })
            }
          ]
        }).pipe(Effect.flatMap(withFactors)),
      lowerRaisedBy: ({ factorId, factorType, now, userId }) =>
        Ref.modify(state, (tables): [number, Tables] => {
          let count = 0
          const sessions = HashMap.map(tables.sessions, (session) => {
            if (session.userId !== userId) return session
            const lowered = Assurance.lower(session, factorId, factorType, now)
            if (lowered !== session) count++
            return lowered
          })
          return [count, { ...tables, sessions }]
        }),
      findById: (id) => Effect.map(Ref.get(state), (tables) => HashMap.get(tables.sessions, id)),
      liveOfUser: (userId, usedAfter) =>
        Effect.map(Ref.get(state), (tables) =>
          [...HashMap.values(tables.sessions)].filter(
            (session) =>
              session.userId === userId &&
              Option.isNone(session.revokedAt) &&
              (Option.isNone(usedAfter) || Session.lastUsed(session) > usedAfter.value)
          )
        ),
      revoke: (id, now) =>
        Ref.modify(state, (tables) => {
          const [count, after] = revokeWhere(tables, (session) => session.id === id, now)
          return [count > 0, after]
        }),
      revokeAll: (userId, now) =>
        Ref.modify(state, (tables) => revokeWhere(tables, (session) => session.userId === userId, now)),
      revokeOthers: (userId, keep, now) =>
        Ref.modify(state, (tables) =>
          revokeWhere(tables, (session) => session.userId === userId && session.id !== keep, now)
        ),
      reapEnded: (endedBefore, limit) =>
        Ref.modify(state, (tables) =>
          deleteWhere(tables, (session) => Option.exists(session.revokedAt, (at) => at < endedBefore), limit)
        ),
      reapOutlived: ({ idleSince, startedBefore }, limit) =>
        Ref.modify(state, (tables) =>
          deleteWhere(
            tables,
            (session) =>
              Option.exists(startedBefore, (cutoff) => session.createdAt < cutoff) ||
              Option.exists(idleSince, (cutoff) => Session.lastUsed(session) < cutoff),
            limit
          )
        ),
      reapRetired: (retiredBefore, limit) =>
        Ref.modify(state, (tables): [number, Tables] => {
          const retired = [...HashMap.entries(tables.refreshTokens)]
            .filter(([, token]) => token.revoked && token.updatedAt < retiredBefore)
            .slice(0, limit)
            .map(([hash]) => hash)
          return [
            retired.length,
            { ...tables, refreshTokens: HashMap.removeMany(tables.refreshTokens, retired) }
          ]
        })
    }
  })
)
