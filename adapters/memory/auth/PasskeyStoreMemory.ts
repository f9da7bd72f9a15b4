import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import {
  CredentialTaken,
  PasskeyStore,
  TooManyPasskeys
} from "../../../application/auth/ports/PasskeyStore.js"
import * as Passkey from "../../../domain/auth/Passkey.js"
import { reapBatch } from "../ReapBatch.js"

interface Tables {
  readonly passkeys: ReadonlyArray<Passkey.Passkey>
  readonly challenges: ReadonlyArray<Passkey.PasskeyChallenge>
}

const empty: Tables = { passkeys: [], challenges: [] }

const byCreation = (a: Passkey.Passkey, b: Passkey.Passkey) =>
  a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id)

/** Passkeys and their challenges in one process's memory; each change is one atomic step. */
export const layer = Layer.effect(
  PasskeyStore,
  Effect.gen(function* () {
    const state = yield* Ref.make<Tables>(empty)

    const replace = (tables: Tables, next: Passkey.Passkey): Tables => ({
      ...tables,
      passkeys: tables.passkeys.map((row) => (row.id === next.id ? next : row))
    })

    const ownedBy = (userId: string, passkeyId: string) => (row: Passkey.Passkey) =>
      row.userId === userId && row.id === passkeyId

    return {
      register: (passkey, maxPerUser) =>
        Effect.flatten(
          Ref.modify(state, (tables): [Effect.Effect<void, CredentialTaken | TooManyPasskeys>, Tables] => {
            const held = tables.passkeys.filter((row) => row.userId === passkey.userId).length
            if (!Passkey.mayRegister(held, maxPerUser)) {
              return [Effect.fail(new TooManyPasskeys({ maxPerUser })), tables]
            }
            if (tables.passkeys.some((row) => row.credentialId === passkey.credentialId)) {
              return [Effect.fail(new CredentialTaken({ credentialId: passkey.credentialId })), tables]
            }
            return [Effect.void, { ...tables, passkeys: [...tables.passkeys, passkey] }]
          })
        ),
      list: (userId) =>
        Effect.map(Ref.get(state), (tables) =>
          tables.passkeys.filter((row) => row.userId === userId).sort(byCreation)
        ),
      findByCredential: (userId, credentialId) =>
        Effect.map(Ref.get(state), (tables) =>
          Option.fromNullable(
            tables.passkeys.find((row) => row.userId === userId && row.credentialId === credentialId)
          )
        ),
      rename: (userId, passkeyId, friendlyName, now) =>
        Ref.modify(state, (tables): [Option.Option<Passkey.Passkey>, Tables] => {
          const found = tables.passkeys.find(ownedBy(userId, passkeyId))
          if (found === undefined) return [Option.none(), tables]
          const renamed = new Passkey.Passkey({ ...found, friendlyName, updatedAt: now }, true)
          return [Option.some(renamed), replace(tables, renamed)]
        }),
      remove: (userId, passkeyId) =>
        Ref.modify(state, (tables): [Option.Option<Passkey.Passkey>, Tables] => {
          const found = tables.passkeys.find(ownedBy(userId, passkeyId))
          return found === undefined
            ? [Option.none(), tables]
            : [Option.some(found), { ...tables, passkeys: tables.passkeys.filter((row) => row !== found) }]
        }),
      removeAll: (userId) =>
        Ref.modify(state, (tables): [ReadonlyArray<Passkey.Passkey>, Tables] => {
          const gone = tables.passkeys.filter((row) => row.userId === userId)
          return [gone, { ...tables, passkeys: tables.passkeys.filter((row) => row.userId !== userId) }]
        }),
      recordUse: (passkeyId, use) =>
        Ref.modify(state, (tables): [Option.Option<Passkey.Passkey>, Tables] => {
          const found = tables.passkeys.find((row) => row.id === passkeyId)
          if (found === undefined || !Passkey.signCountAccepted(found.signCount, use.signCount)) {
            return [Option.none(), tables]
          }
          const used = new Passkey.Passkey(
            { ...Passkey.used(found, use.signCount, use.at), backedUp: use.backedUp },
            true
          )
          return [Option.some(used), replace(tables, used)]
        }),

      createChallenge: (challenge) =>
        Ref.update(state, (tables) => ({ ...tables, challenges: [...tables.challenges, challenge] })),
      takeChallenge: (challengeId, purpose, userId) =>
        Ref.modify(state, (tables): [Option.Option<Passkey.PasskeyChallenge>, Tables] => {
          const found = tables.challenges.find(
            (challenge) =>
              challenge.id === challengeId &&
              challenge.purpose === purpose &&
              Option.getEquivalence<string>((a, b) => a === b)(challenge.userId, userId)
          )
          return found === undefined
            ? [Option.none(), tables]
            : [
                Option.some(found),
                { ...tables, challenges: tables.challenges.filter((challenge) => challenge !== found) }
              ]
        }),
      reapChallenges: (now, limit) =>
        Ref.modify(state, (tables): [number, Tables] => {
          const { count, kept } = reapBatch(
            tables.challenges,
            (challenge) => challenge.expiresAt.getTime() < now.getTime(),
            limit
          )
          return [count, { ...tables, challenges: kept }]
        })
    }
  })
)
