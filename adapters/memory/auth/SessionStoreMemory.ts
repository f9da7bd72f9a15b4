import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import {
  type Refreshed,
  type RefreshFailure,
  RefreshTokenAlreadyUsed,
  RefreshTokenExpired,
  RefreshTokenNotFound,
  SessionRevoked,
  SessionStore
} from "../../../application/auth/ports/SessionStore.js"
import * as Session from "../../../domain/auth/Session.js"
import { AuthMemoryState, type Tables } from "./AuthMemoryState.js"

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
      ? { ...token, revoked: true, sealedChild: Option.none() }
      : token
  )
  return [count, { ...tables, sessions, refreshTokens }]
}

type Outcome = Effect.Effect<Refreshed, RefreshFailure>

export const layer = Layer.effect(
  SessionStore,
  Effect.gen(function* () {
    const state = yield* AuthMemoryState
    return {
      start: (session, firstToken) =>
        Ref.update(state, (tables) => ({
          ...tables,
          sessions: HashMap.set(tables.sessions, session.id, session),
          refreshTokens: HashMap.set(tables.refreshTokens, firstToken, {
            sessionId: session.id,
            generation: 0,
            revoked: false,
            sealedChild: Option.none()
          })
        })),
      refresh: ({ child, now, policy, presented }) =>
        Effect.flatten(
          Ref.modify(state, (tables): [Outcome, Tables] => {
            const token = HashMap.get(tables.refreshTokens, presented)
            const stored = Option.flatMap(token, ({ sessionId }) => HashMap.get(tables.sessions, sessionId))
            if (Option.isNone(token) || Option.isNone(stored)) {
              return [Effect.fail(new RefreshTokenNotFound()), tables]
            }
            const session = stored.value
            const sessionId = session.id
            const { decision, after } = Session.present(session, token.value.generation, policy, now)
            switch (decision._tag) {
              case "Rotate": {
                const keepsSealed = Duration.greaterThan(policy.reuseInterval, Duration.zero)
                // The presented token now holds the sealed child; an older one lets its go.
                const retired = HashMap.map(tables.refreshTokens, (row, hash) =>
                  row.sessionId !== sessionId
                    ? row
                    : hash === presented
                      ? {
                          ...row,
                          revoked: true,
                          sealedChild: keepsSealed ? Option.some(child.sealed) : Option.none()
                        }
                      : { ...row, sealedChild: Option.none() }
                )
                return [
                  Effect.succeed({ _tag: "Rotated", session: after }),
                  {
                    ...tables,
                    sessions: HashMap.set(tables.sessions, sessionId, after),
                    refreshTokens: HashMap.set(retired, child.hash, {
                      sessionId,
                      generation: decision.generation,
                      revoked: false,
                      sealedChild: Option.none()
                    })
                  }
                ]
              }
              case "Reissue":
                return [
                  Option.match(token.value.sealedChild, {
                    // Rotated without a reuse interval, then presented inside one: nothing to give.
                    onNone: () =>
                      Effect.fail(new RefreshTokenAlreadyUsed({ sessionId, sessionRevoked: false })),
                    onSome: (sealed) => Effect.succeed({ _tag: "Reissued", session, child: sealed })
                  }),
                  tables
                ]
              case "ReuseDetected": {
                const [, revoked] = revokeWhere(tables, (s) => s.id === sessionId, now)
                return [
                  Effect.fail(new RefreshTokenAlreadyUsed({ sessionId, sessionRevoked: true })),
                  revoked
                ]
              }
              case "AlreadyUsed":
                return [
                  Effect.fail(new RefreshTokenAlreadyUsed({ sessionId, sessionRevoked: false })),
                  tables
                ]
              case "Revoked":
                return [Effect.fail(new SessionRevoked({ sessionId })), tables]
              case "Expired":
                return [Effect.fail(new RefreshTokenExpired({ sessionId })), tables]
              case "WrongClient":
                return [Effect.dieMessage("a session's refresh tokens are bound to no client"), tables]
            }
          })
        ),
      findById: (id) => Effect.map(Ref.get(state), (tables) => HashMap.get(tables.sessions, id)),
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
        )
    }
  })
)
