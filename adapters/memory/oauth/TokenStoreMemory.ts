import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { type Rotation, TokenStore } from "../../../application/oauth/ports/TokenStore.js"
import type { FamilyId } from "../../../domain/Ids.js"
import * as AccessToken from "../../../domain/oauth/AccessToken.js"
import * as RefreshTokenFamily from "../../../domain/RefreshTokenFamily.js"
import { reapEntries } from "../ReapBatch.js"
import { MemoryState, type Tables } from "./MemoryState.js"

const revokeAccessWhere = (
  tables: Tables,
  revoke: (token: AccessToken.AccessToken) => boolean,
  now: Date
) => {
  let count = 0
  const accessTokens = HashMap.map(tables.accessTokens, (token) => {
    if (Option.isNone(token.revokedAt) && revoke(token)) {
      count++
      return new AccessToken.AccessToken({ ...token, revokedAt: Option.some(now) })
    }
    return token
  })
  return { count, tables: { ...tables, accessTokens } }
}

const belongsTo = (familyId: FamilyId) => (token: AccessToken.AccessToken) =>
  Option.exists(token.familyId, (id) => id === familyId)

/** Revokes a family and its access tokens; reports whether the family was live before. */
const revokeFamilyIn = (tables: Tables, familyId: FamilyId, now: Date): [boolean, Tables] => {
  const family = HashMap.get(tables.families, familyId)
  if (Option.isNone(family) || Option.isSome(family.value.revokedAt)) return [false, tables]
  const revoked = revokeAccessWhere(tables, belongsTo(familyId), now).tables
  return [
    true,
    {
      ...revoked,
      families: HashMap.set(revoked.families, familyId, RefreshTokenFamily.revoke(family.value, now))
    }
  ]
}

export const layer = Layer.effect(
  TokenStore,
  Effect.gen(function* () {
    const state = yield* MemoryState
    return {
      issue: ({ access, refresh }) =>
        Ref.update(state, (tables) => {
          const withAccess = {
            ...tables,
            accessTokens: HashMap.set(tables.accessTokens, access.hash, access)
          }
          return Option.match(refresh, {
            onNone: () => withAccess,
            onSome: ({ family, tokenHash }) => ({
              ...withAccess,
              families: HashMap.set(withAccess.families, family.id, family),
              refreshTokens: HashMap.set(withAccess.refreshTokens, tokenHash, {
                familyId: family.id,
                generation: family.generation
              })
            })
          })
        }),
      findAccess: (hash) => Effect.map(Ref.get(state), (tables) => HashMap.get(tables.accessTokens, hash)),
      findRefresh: (hash) =>
        Effect.map(Ref.get(state), (tables) =>
          Option.flatMap(HashMap.get(tables.refreshTokens, hash), ({ familyId, generation }) =>
            Option.map(HashMap.get(tables.families, familyId), (family) => ({ family, generation }))
          )
        ),
      rotate: (request) =>
        Ref.modify(state, (tables): [Rotation, Tables] => {
          const token = HashMap.get(tables.refreshTokens, request.presented)
          const family = Option.flatMap(token, ({ familyId }) => HashMap.get(tables.families, familyId))
          if (Option.isNone(token) || Option.isNone(family)) return [{ _tag: "UnknownToken" }, tables]
          const decision = RefreshTokenFamily.decide(
            request.policy,
            family.value,
            { generation: token.value.generation, clientId: Option.some(request.presenter) },
            request.now
          )
          const after = RefreshTokenFamily.apply(family.value, decision, request.now)
          const decided = { _tag: "Decided", decision, family: after } as const
          if (decision._tag === "ReuseDetected") {
            const [, revoked] = revokeFamilyIn(tables, after.id, request.now)
            return [decided, revoked]
          }
          if (decision._tag !== "Rotate") return [decided, tables]
          const access = new AccessToken.AccessToken({
            hash: request.accessHash,
            userId: after.userId,
            clientId: request.presenter,
            grantId: after.grantId,
            familyId: Option.some(after.id),
            scope: after.scope,
            resource: after.resource,
            issuedAt: request.now,
            expiresAt: request.accessExpiresAt,
            revokedAt: Option.none()
          })
          return [
            decided,
            {
              ...tables,
              families: HashMap.set(tables.families, after.id, after),
              refreshTokens: HashMap.set(tables.refreshTokens, request.childHash, {
                familyId: after.id,
                generation: after.generation
              }),
              accessTokens: HashMap.set(tables.accessTokens, access.hash, access)
            }
          ]
        }),
      revokeAccess: (hash, now) =>
        Ref.modify(state, (tables) => {
          const { count, tables: after } = revokeAccessWhere(tables, (token) => token.hash === hash, now)
          return [count > 0, after]
        }),
      revokeFamily: (id, now) => Ref.modify(state, (tables) => revokeFamilyIn(tables, id, now)),
      revokeGrant: (grantId, now) =>
        Ref.modify(state, (tables) => {
          const fromGrant = (token: AccessToken.AccessToken) =>
            Option.exists(token.grantId, (id) => id === grantId)
          const { count, tables: after } = revokeAccessWhere(tables, fromGrant, now)
          let families = 0
          let result = after
          for (const family of HashMap.values(after.families)) {
            if (Option.exists(family.grantId, (id) => id === grantId)) {
              const [revoked, next] = revokeFamilyIn(result, family.id, now)
              if (revoked) families++
              result = next
            }
          }
          return [count + families, result]
        }),
      purge: (now, limit) =>
        Ref.modify(state, (tables) => {
          const accessTokens = reapEntries(
            tables.accessTokens,
            (token) => AccessToken.isDead(token, now),
            limit
          )
          const families = reapEntries(
            tables.families,
            (family) => RefreshTokenFamily.isDead(family, now),
            limit
          )
          const refreshTokens = HashMap.filter(tables.refreshTokens, ({ familyId }) =>
            HashMap.has(families.kept, familyId)
          )
          return [
            { accessTokens: accessTokens.gone.length, families: families.gone.length },
            { ...tables, accessTokens: accessTokens.kept, families: families.kept, refreshTokens }
          ]
        })
    }
  })
)
