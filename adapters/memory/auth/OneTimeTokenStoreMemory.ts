import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import {
  type CodeOutcome,
  IssuedTooSoon,
  OneTimeTokenStore
} from "../../../application/auth/ports/OneTimeTokenStore.js"
import { maxFailedAttempts, OneTimeToken, type Purpose } from "../../../domain/auth/OneTimeToken.js"

const live = (token: OneTimeToken, purposes: ReadonlyArray<Purpose>, now: Date) =>
  Option.isNone(token.usedAt) &&
  purposes.includes(token.purpose) &&
  token.expiresAt.getTime() > now.getTime() &&
  token.failedAttempts < maxFailedAttempts

/** One-time tokens in one process's memory, by user and purpose; each use is one atomic step. */
export const layer = Layer.effect(
  OneTimeTokenStore,
  Effect.gen(function* () {
    const tokens = yield* Ref.make<ReadonlyArray<OneTimeToken>>([])
    return {
      issue: (token, notAfter) =>
        Effect.flatten(
          Ref.modify(tokens, (all): [Effect.Effect<void, IssuedTooSoon>, ReadonlyArray<OneTimeToken>] => {
            const live = all.find((other) => other.userId === token.userId && other.purpose === token.purpose)
            const tooSoon =
              live !== undefined &&
              Option.isSome(notAfter) &&
              live.createdAt.getTime() > notAfter.value.getTime()
            if (live !== undefined && tooSoon) {
              return [Effect.fail(new IssuedTooSoon({ lastIssuedAt: live.createdAt })), all]
            }
            return [Effect.void, [...all.filter((other) => other !== live), token]]
          })
        ),
      useLink: (linkHash, purposes, now) =>
        Ref.modify(tokens, (all) => {
          const found = all.find((token) => token.linkHash === linkHash && live(token, purposes, now))
          if (found === undefined) return [Option.none(), all]
          const used = new OneTimeToken({ ...found, usedAt: Option.some(now) }, true)
          return [Option.some(used), all.map((token) => (token === found ? used : token))]
        }),
      useCode: (userId, purposes, codeHash, now) =>
        Ref.modify(tokens, (all): [CodeOutcome, ReadonlyArray<OneTimeToken>] => {
          const mine = all.filter((token) => token.userId === userId && live(token, purposes, now))
          const used = mine.find((token) => token.codeHash === codeHash)
          if (used !== undefined)
            return [{ _tag: "Used", token: used }, all.filter((token) => token !== used)]
          if (mine.length === 0) return [{ _tag: "None" }, all]
          return [
            { _tag: "Wrong" },
            all.map((token) =>
              mine.includes(token)
                ? new OneTimeToken({ ...token, failedAttempts: token.failedAttempts + 1 }, true)
                : token
            )
          ]
        }),
      endAllOf: (userId) => Ref.update(tokens, (all) => all.filter((token) => token.userId !== userId))
    }
  })
)
