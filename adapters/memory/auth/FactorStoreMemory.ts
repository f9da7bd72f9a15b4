import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import {
  ChallengedTooSoon,
  type ChallengeUse,
  type Counts,
  FactorLimitReached,
  FactorNameTaken,
  FactorPhoneTaken,
  FactorStore,
  RecoveryCodesExist,
  type StoredFactor
} from "../../../application/auth/ports/FactorStore.js"
import { Factor, withinLimits } from "../../../domain/auth/Factor.js"
import { FactorChallenge } from "../../../domain/auth/FactorChallenge.js"
import * as RecoveryCodes from "../../../domain/auth/RecoveryCodes.js"
import { WebAuthnCredential } from "../../../domain/auth/WebAuthnCredential.js"
import type { SecretHash, UserId } from "../../../domain/Ids.js"
import { reapBatch } from "../ReapBatch.js"

interface CodeRow {
  readonly factorId: string
  readonly codeHash: SecretHash
  readonly usedAt: Option.Option<Date>
}

interface Tables {
  readonly factors: ReadonlyArray<StoredFactor>
  readonly challenges: ReadonlyArray<FactorChallenge>
  readonly codes: ReadonlyArray<CodeRow>
}

/** What the table's unique indexes refuse of a new factor. */
type Refusal = FactorNameTaken | FactorPhoneTaken | RecoveryCodesExist

const empty: Tables = { factors: [], challenges: [], codes: [] }

/** The unique index on names ignores blank ones, as the table's does. */
const named = (name: string) => name.trim() !== ""

/** The other factors of `factor`'s user. */
const othersOf = (factor: Factor, all: ReadonlyArray<StoredFactor>) =>
  all.filter((other) => other.factor.userId === factor.userId && other.factor.id !== factor.id)

/** What the table's unique indexes on names and numbers would refuse of `factor`. */
const nameOrPhoneConflict = (
  factor: Factor,
  all: ReadonlyArray<StoredFactor>
): Option.Option<FactorNameTaken | FactorPhoneTaken> => {
  const others = othersOf(factor, all)
  if (
    named(factor.friendlyName) &&
    others.some((other) => other.factor.friendlyName === factor.friendlyName)
  ) {
    return Option.some(new FactorNameTaken({ friendlyName: factor.friendlyName }))
  }
  const phone = factor.phone
  return Option.isSome(phone) && others.some((other) => Option.contains(other.factor.phone, phone.value))
    ? Option.some(new FactorPhoneTaken({ phone: phone.value }))
    : Option.none()
}

/** What the one-set-per-user index would refuse of `factor`. */
const setConflict = (factor: Factor, all: ReadonlyArray<StoredFactor>): Option.Option<RecoveryCodesExist> =>
  factor.factorType === "recovery_code" &&
  othersOf(factor, all).some((other) => other.factor.factorType === "recovery_code")
    ? Option.some(new RecoveryCodesExist())
    : Option.none()

const stored = (factor: Factor, secret: Option.Option<string>): StoredFactor => ({
  factor,
  secret,
  lastTotpStep: Option.none(),
  webAuthn: Option.none(),
  webAuthnAaguid: Option.none(),
  attempts: RecoveryCodes.noAttempts
})

/** The user's factors that count towards the limits (all but recovery codes), by status. */
const countsOf = (tables: Tables, userId: UserId): Counts => {
  const counted = tables.factors.filter(
    (row) => row.factor.userId === userId && row.factor.factorType !== "recovery_code"
  )
  return {
    enrolled: counted.length,
    verified: counted.filter((row) => row.factor.status === "verified").length
  }
}

const byCreation = (a: StoredFactor, b: StoredFactor) =>
  a.factor.createdAt.getTime() - b.factor.createdAt.getTime() || a.factor.id.localeCompare(b.factor.id)

/** Factors, their challenges and recovery codes in one process's memory; each change is one atomic step. */
export const layer = Layer.effect(
  FactorStore,
  Effect.gen(function* () {
    const state = yield* Ref.make<Tables>(empty)

    /** The tables without the factors `gone` and what hangs off them, as the cascade leaves them. */
    const without = (tables: Tables, gone: ReadonlyArray<StoredFactor>): Tables => {
      const ids = new Set<string>(gone.map((row) => row.factor.id))
      return {
        factors: tables.factors.filter((row) => !ids.has(row.factor.id)),
        challenges: tables.challenges.filter((challenge) => !ids.has(challenge.factorId)),
        codes: tables.codes.filter((code) => !ids.has(code.factorId))
      }
    }

    const replaceFactor = (tables: Tables, next: StoredFactor): Tables => ({
      ...tables,
      factors: tables.factors.map((row) => (row.factor.id === next.factor.id ? next : row))
    })

    const recoverySet = (tables: Tables, userId: string) =>
      tables.factors.find((row) => row.factor.userId === userId && row.factor.factorType === "recovery_code")

    return {
      // One `Ref.modify`: the count and the insert are one step, as under the user's lock in Postgres.
      enrol: (factor, secret, limits, replaces = []) =>
        Effect.flatten(
          Ref.modify(state, (before): [Effect.Effect<void, Refusal | FactorLimitReached>, Tables] => {
            // The replaced factors go in the same step; nothing of it stays when it is refused.
            const tables = without(
              before,
              before.factors.filter(
                (row) => row.factor.userId === factor.userId && replaces.includes(row.factor.id)
              )
            )
            if (!withinLimits(countsOf(tables, factor.userId), limits)) {
              return [Effect.fail(new FactorLimitReached()), before]
            }
            return Option.match(
              Option.orElse(nameOrPhoneConflict(factor, tables.factors), () =>
                setConflict(factor, tables.factors)
              ),
              {
                onSome: (error) => [Effect.fail(error), before],
                onNone: () => [
                  Effect.void,
                  { ...tables, factors: [...tables.factors, stored(factor, secret)] }
                ]
              }
            )
          })
        ),
      list: (userId) =>
        Effect.map(Ref.get(state), (tables) =>
          tables.factors
            .filter((row) => row.factor.userId === userId)
            .sort(byCreation)
            .map((row) => row.factor)
        ),
      find: (userId, factorId) =>
        Effect.map(Ref.get(state), (tables) =>
          Option.fromNullable(
            tables.factors.find((row) => row.factor.userId === userId && row.factor.id === factorId)
          )
        ),
      count: (userId) => Effect.map(Ref.get(state), (tables) => countsOf(tables, userId)),
      markVerified: (userId, factorId, now, registration) =>
        Ref.modify(state, (tables): [Option.Option<Factor>, Tables] => {
          const found = tables.factors.find(
            (row) =>
              row.factor.userId === userId && row.factor.id === factorId && row.factor.status === "unverified"
          )
          if (found === undefined) return [Option.none(), tables]
          const factor = new Factor({ ...found.factor, status: "verified", updatedAt: now }, true)
          const next: StoredFactor = Option.match(registration, {
            onNone: () => ({ ...found, factor }),
            onSome: ({ credential, aaguid }) => ({
              ...found,
              factor,
              webAuthn: Option.some(credential),
              webAuthnAaguid: aaguid
            })
          })
          return [Option.some(factor), replaceFactor(tables, next)]
        }),
      update: (userId, factorId, changes, now) =>
        Effect.flatten(
          Ref.modify(
            state,
            (tables): [Effect.Effect<Option.Option<Factor>, FactorNameTaken | FactorPhoneTaken>, Tables] => {
              const found = tables.factors.find(
                (row) => row.factor.userId === userId && row.factor.id === factorId
              )
              if (found === undefined) return [Effect.succeed(Option.none()), tables]
              const factor = new Factor(
                {
                  ...found.factor,
                  friendlyName: Option.getOrElse(changes.friendlyName, () => found.factor.friendlyName),
                  phone: Option.orElse(changes.phone, () => found.factor.phone),
                  updatedAt: now
                },
                true
              )
              const refused = nameOrPhoneConflict(factor, tables.factors)
              if (Option.isSome(refused)) return [Effect.fail(refused.value), tables]
              return [Effect.succeed(Option.some(factor)), replaceFactor(tables, { ...found, factor })]
            }
          )
        ),
      remove: (userId, factorId) =>
        Ref.modify(state, (tables): [Option.Option<Factor>, Tables] => {
          const found = tables.factors.find(
            (row) => row.factor.userId === userId && row.factor.id === factorId
          )
          return found === undefined
            ? [Option.none(), tables]
            : [Option.some(found.factor), without(tables, [found])]
        }),
      removeAll: (userId) =>
        Ref.modify(state, (tables): [ReadonlyArray<Factor>, Tables] => {
          const gone = tables.factors.filter((row) => row.factor.userId === userId)
          return [gone.map((row) => row.factor), without(tables, gone)]
        }),
      removeAbandoned: (createdBefore, limit) =>
        Ref.modify(state, (tables): [number, Tables] => {
          const gone = tables.factors
            .filter(
              (row) =>
                row.factor.status === "unverified" &&
                row.factor.createdAt.getTime() < createdBefore.getTime() &&
                !tables.challenges.some((challenge) => challenge.factorId === row.factor.id)
            )
            .slice(0, limit)
          return [gone.length, without(tables, gone)]
        }),
      replaceSecret: (factorId, from, to) =>
        Ref.modify(state, (tables): [boolean, Tables] => {
          const found = tables.factors.find((row) => row.factor.id === factorId)
          if (found === undefined || !Option.contains(found.secret, from)) return [false, tables]
          return [true, replaceFactor(tables, { ...found, secret: Option.some(to) })]
        }),

      advanceWebAuthnCounter: (factorId, signCount) =>
        Ref.modify(state, (tables): [boolean, Tables] => {
          const found = tables.factors.find((row) => row.factor.id === factorId)
          const credential = found === undefined ? Option.none() : found.webAuthn
          if (found === undefined || Option.isNone(credential)) return [false, tables]
          const stored = credential.value.signCount
          if (!(signCount > stored || (signCount === 0 && stored === 0))) return [false, tables]
          return [
            true,
            replaceFactor(tables, {
              ...found,
              webAuthn: Option.some(new WebAuthnCredential({ ...credential.value, signCount }, true))
            })
          ]
        }),

      createChallenge: (challenge, lastBefore) =>
        Effect.flatten(
          Ref.modify(state, (tables): [Effect.Effect<boolean, ChallengedTooSoon>, Tables] => {
            const found = tables.factors.find((row) => row.factor.id === challenge.factorId)
            if (found === undefined) return [Effect.succeed(false), tables]
            const last = found.factor.lastChallengedAt
            if (
              Option.isSome(lastBefore) &&
              Option.isSome(last) &&
              last.value.getTime() >= lastBefore.value.getTime()
            ) {
              return [Effect.fail(new ChallengedTooSoon({ lastChallengedAt: last.value })), tables]
            }
            const factor = new Factor(
              { ...found.factor, lastChallengedAt: Option.some(challenge.createdAt) },
              true
            )
            return [
              Effect.succeed(true),
              {
                ...replaceFactor(tables, { ...found, factor }),
                challenges: [...tables.challenges, challenge]
              }
            ]
          })
        ),
      findChallenge: (factorId, challengeId) =>
        Effect.map(Ref.get(state), (tables) =>
          Option.fromNullable(
            tables.challenges.find(
              (challenge) => challenge.id === challengeId && challenge.factorId === factorId
            )
          )
        ),
      useChallenge: (factorId, challengeId, now, totpStep) =>
        Ref.modify(state, (tables): [ChallengeUse, Tables] => {
          const found = tables.challenges.find(
            (challenge) =>
              challenge.id === challengeId &&
              challenge.factorId === factorId &&
              Option.isNone(challenge.verifiedAt)
          )
          const factor = tables.factors.find((row) => row.factor.id === factorId)
          if (found === undefined || factor === undefined) return [{ _tag: "Gone" }, tables]
          if (
            Option.isSome(totpStep) &&
            Option.exists(factor.lastTotpStep, (last) => last >= totpStep.value)
          ) {
            return [{ _tag: "StepRefused" }, tables]
          }
          const used = new FactorChallenge({ ...found, verifiedAt: Option.some(now) }, true)
          const stepped = Option.isSome(totpStep)
            ? replaceFactor(tables, { ...factor, lastTotpStep: totpStep })
            : tables
          return [
            { _tag: "Used", challenge: used },
            {
              ...stepped,
              challenges: stepped.challenges.map((challenge) => (challenge === found ? used : challenge))
            }
          ]
        }),
      takeChallenge: (factorId, challengeId) =>
        Ref.modify(state, (tables): [Option.Option<FactorChallenge>, Tables] => {
          const found = tables.challenges.find(
            (challenge) => challenge.id === challengeId && challenge.factorId === factorId
          )
          return found === undefined
            ? [Option.none(), tables]
            : [
                Option.some(found),
                { ...tables, challenges: tables.challenges.filter((challenge) => challenge !== found) }
              ]
        }),
      reapChallenges: (createdBefore, limit) =>
        Ref.modify(state, (tables): [number, Tables] => {
          const { count, kept } = reapBatch(
            tables.challenges,
            (challenge) => challenge.createdAt.getTime() < createdBefore.getTime(),
            limit
          )
          return [count, { ...tables, challenges: kept }]
        }),

      createRecoveryCodes: (factor, codeHashes) =>
        Effect.flatten(
          Ref.modify(state, (tables): [Effect.Effect<void, RecoveryCodesExist | FactorNameTaken>, Tables] => {
            // The set's factor has no number: only its name or the set itself can conflict.
            const refused = Option.orElse(setConflict(factor, tables.factors), () =>
              Option.filter(
                nameOrPhoneConflict(factor, tables.factors),
                (error) => error._tag === "FactorNameTaken"
              )
            )
            if (Option.isSome(refused)) return [Effect.fail(refused.value), tables]
            return [
              Effect.void,
              {
                ...tables,
                factors: [...tables.factors, stored(factor, Option.none())],
                codes: [
                  ...tables.codes,
                  ...codeHashes.map((codeHash) => ({ factorId: factor.id, codeHash, usedAt: Option.none() }))
                ]
              }
            ]
          })
        ),
      replaceRecoveryCodes: (userId, codeHashes, now) =>
        Ref.modify(state, (tables): [Option.Option<Factor>, Tables] => {
          const found = recoverySet(tables, userId)
          if (found === undefined) return [Option.none(), tables]
          const factor = new Factor({ ...found.factor, updatedAt: now }, true)
          const next = replaceFactor(tables, { ...found, factor, attempts: RecoveryCodes.noAttempts })
          return [
            Option.some(factor),
            {
              ...next,
              codes: [
                ...next.codes.filter((code) => code.factorId !== factor.id),
                ...codeHashes.map((codeHash) => ({ factorId: factor.id, codeHash, usedAt: Option.none() }))
              ]
            }
          ]
        }),
      recoveryCodes: (userId) =>
        Effect.map(Ref.get(state), (tables) =>
          Option.map(Option.fromNullable(recoverySet(tables, userId)), ({ factor }) => ({
            factor,
            status: RecoveryCodes.status(
              tables.codes.filter((code) => code.factorId === factor.id).map((code) => code.usedAt)
            )
          }))
        ),
      attemptRecoveryCode: (userId, codeHash, policy, now) =>
        Ref.modify(state, (tables) => {
          const found = recoverySet(tables, userId)
          if (found === undefined) return [Option.none(), tables]
          const matching = RecoveryCodes.isLocked(found.attempts, now)
            ? undefined
            : tables.codes.find(
                (code) =>
                  code.factorId === found.factor.id &&
                  Option.isNone(code.usedAt) &&
                  Option.contains(codeHash, code.codeHash)
              )
          const outcome = RecoveryCodes.attempt(policy, found.attempts, matching !== undefined, now)
          const next = replaceFactor(tables, {
            ...found,
            attempts: RecoveryCodes.after(found.attempts, outcome)
          })
          return [
            Option.some({ factor: found.factor, outcome }),
            {
              ...next,
              codes: next.codes.map((code) =>
                code === matching ? { ...code, usedAt: Option.some(now) } : code
              )
            }
          ]
        })
    }
  })
)
