import { createHash, randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { OneTimeTokenStore } from "../../../../application/auth/ports/OneTimeTokenStore.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import {
  codeSubject,
  maxFailedAttempts,
  OneTimeToken,
  OneTimeTokenId,
  type Purpose
} from "../../../../domain/auth/OneTimeToken.js"
import { SecretHash } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import type { User } from "../../../../domain/User.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import { concurrently } from "../Storage.js"
import type { It } from "./AuthStorage.js"

const digest = (value: string) => SecretHash.make(createHash("sha256").update(value).digest("hex"))

/** A token of `purpose` for `user`, created at `at`, with a fresh link and the code `code`. */
const tokenFor = (user: User, purpose: Purpose, code: string, at: Date) => {
  const link = `lkv_${randomUUID()}`
  const token = new OneTimeToken({
    id: OneTimeTokenId.make(randomUUID()),
    userId: user.id,
    purpose,
    sentTo: Option.getOrElse(user.email, () => ""),
    linkHash: digest(link),
    codeHash: digest(codeSubject(user.id, code)),
    failedAttempts: 0,
    createdAt: at,
    expiresAt: Time.plus(at, "1 hour"),
    usedAt: Option.none(),
    flowStateId: Option.none()
  })
  return { token, link }
}

/** A stored user with a token of `purpose` for it, link `lkv_<random>` and code `code`. */
const issued = (purpose: Purpose, code = "123456", user: User = Fixtures.user()) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    if (Option.isNone(yield* users.findById(user.id))) yield* users.insert(user, [], Option.none())
    const { token, link } = tokenFor(user, purpose, code, Fixtures.t0)
    yield* Effect.flatMap(OneTimeTokenStore, (store) => store.issue(token, Option.none()))
    return { user, token, link, code }
  })

const soon = Time.plus(Fixtures.t0, "1 minute")

export const oneTimeTokenStoreContract = (it: It) =>
  describe("OneTimeTokenStore", () => {
    it.effect("a link is used once, for the purposes asked, before it expires", () =>
      Effect.gen(function* () {
        const store = yield* OneTimeTokenStore
        const { token, link } = yield* issued("confirmation")
        expect(yield* store.useLink(digest(link), ["recovery"], soon)).toEqual(Option.none())
        expect(
          yield* store.useLink(digest(link), ["confirmation"], Time.plus(Fixtures.t0, "1 hour"))
        ).toEqual(Option.none())
        expect(yield* store.useLink(digest(link), ["recovery", "confirmation"], soon)).toEqual(
          Option.some(new OneTimeToken({ ...token, usedAt: Option.some(soon) }))
        )
        expect(yield* store.useLink(digest(link), ["confirmation"], soon)).toEqual(Option.none())
      })
    )

    it.effect("a code is used once; a wrong one is counted, and the last allowed ends the token", () =>
      Effect.gen(function* () {
        const store = yield* OneTimeTokenStore
        const { user, token, code } = yield* issued("confirmation")
        const right = digest(codeSubject(user.id, code))
        const wrong = digest(codeSubject(user.id, "000000"))
        expect(yield* store.useCode(user.id, ["confirmation"], wrong, soon)).toEqual({ _tag: "Wrong" })
        const used = yield* store.useCode(user.id, ["confirmation"], right, soon)
        expect(used._tag === "Used" ? used.token.id : undefined).toBe(token.id)
        expect(yield* store.useCode(user.id, ["confirmation"], right, soon)).toEqual({ _tag: "None" })

        const again = yield* issued("recovery", "654321", user)
        const rightAgain = digest(codeSubject(user.id, again.code))
        for (let attempt = 1; attempt <= maxFailedAttempts; attempt++) {
          expect(yield* store.useCode(user.id, ["recovery"], wrong, soon)).toEqual({ _tag: "Wrong" })
        }
        // Worn out: the right code, and the link, no longer work.
        expect(yield* store.useCode(user.id, ["recovery"], rightAgain, soon)).toEqual({ _tag: "None" })
        expect(yield* store.useLink(digest(again.link), ["recovery"], soon)).toEqual(Option.none())
      })
    )

    it.effect("endAllOf ends every token of the user, and no other user's", () =>
      Effect.gen(function* () {
        const store = yield* OneTimeTokenStore
        const recovery = yield* issued("recovery", "111111")
        const confirmation = yield* issued("confirmation", "222222", recovery.user)
        const bystander = yield* issued("recovery", "333333")
        yield* store.endAllOf(recovery.user.id)
        expect(yield* store.useLink(digest(recovery.link), ["recovery"], soon)).toEqual(Option.none())
        expect(
          (yield* store.useCode(recovery.user.id, ["confirmation"], confirmation.token.codeHash, soon))._tag
        ).toBe("None")
        expect(Option.isSome(yield* store.useLink(digest(bystander.link), ["recovery"], soon))).toBe(true)
      })
    )

    it.effect("a new token of one purpose replaces the last; other purposes stay", () =>
      Effect.gen(function* () {
        const store = yield* OneTimeTokenStore
        const first = yield* issued("confirmation")
        const magic = yield* issued("magic_link", "111111", first.user)
        const second = yield* issued("confirmation", "222222", first.user)
        expect(yield* store.useLink(digest(first.link), ["confirmation"], soon)).toEqual(Option.none())
        expect(Option.isSome(yield* store.useLink(digest(second.link), ["confirmation"], soon))).toBe(true)
        expect(Option.isSome(yield* store.useLink(digest(magic.link), ["magic_link"], soon))).toBe(true)
      })
    )

    it.effect(
      "a token issued within the spacing of the last is refused, naming when the last was issued",
      () =>
        Effect.gen(function* () {
          const store = yield* OneTimeTokenStore
          const first = yield* issued("confirmation")
          const early = tokenFor(first.user, "confirmation", "222222", Time.plus(Fixtures.t0, "30 seconds"))
          const refused = yield* Effect.either(
            store.issue(early.token, Option.some(Time.minus(early.token.createdAt, "1 minute")))
          )
          expect(refused._tag === "Left" ? refused.left.lastIssuedAt : undefined).toEqual(Fixtures.t0)
          // The first token still works; the refused one never did.
          expect(yield* store.useLink(digest(early.link), ["confirmation"], soon)).toEqual(Option.none())
          const later = tokenFor(first.user, "confirmation", "333333", Time.plus(Fixtures.t0, "61 seconds"))
          yield* store.issue(later.token, Option.some(Time.minus(later.token.createdAt, "1 minute")))
          expect(
            yield* store.useLink(digest(first.link), ["confirmation"], Time.plus(Fixtures.t0, "2 minutes"))
          ).toEqual(Option.none())
          expect(
            Option.isSome(
              yield* store.useLink(digest(later.link), ["confirmation"], Time.plus(Fixtures.t0, "2 minutes"))
            )
          ).toBe(true)

          // Used, a token still spaces the next mail of its purpose.
          const used = yield* issued("magic_link", "555555", first.user)
          yield* store.useLink(digest(used.link), ["magic_link"], soon)
          const next = tokenFor(first.user, "magic_link", "666666", Time.plus(Fixtures.t0, "30 seconds"))
          const spaced = yield* Effect.either(
            store.issue(next.token, Option.some(Time.minus(next.token.createdAt, "1 minute")))
          )
          expect(spaced._tag).toBe("Left")

          // Concurrent requests for a user with no live token: one is issued, the rest are too soon.
          const user = (yield* issued("recovery")).user
          const at = Time.plus(Fixtures.t0, "5 seconds")
          const attempts = yield* Effect.all(
            Array.from({ length: concurrently }, () =>
              Effect.either(
                store.issue(
                  tokenFor(user, "invite", "444444", at).token,
                  Option.some(Time.minus(at, "1 minute"))
                )
              )
            ),
            { concurrency: "unbounded" }
          )
          expect(attempts.filter((attempt) => attempt._tag === "Right")).toHaveLength(1)
        })
    )

    it.effect(`${concurrently} concurrent presentations of one code or one link: exactly one uses it`, () =>
      Effect.gen(function* () {
        const store = yield* OneTimeTokenStore
        const byCode = yield* issued("magic_link")
        const outcomes = yield* Effect.all(
          Array.from({ length: concurrently }, () =>
            store.useCode(
              byCode.user.id,
              ["magic_link"],
              digest(codeSubject(byCode.user.id, byCode.code)),
              soon
            )
          ),
          { concurrency: "unbounded" }
        )
        expect(outcomes.filter((outcome) => outcome._tag === "Used")).toHaveLength(1)
        expect(outcomes.filter((outcome) => outcome._tag === "None")).toHaveLength(concurrently - 1)

        const byLink = yield* issued("recovery")
        const links = yield* Effect.all(
          Array.from({ length: concurrently }, () => store.useLink(digest(byLink.link), ["recovery"], soon)),
          { concurrency: "unbounded" }
        )
        expect(links.filter(Option.isSome)).toHaveLength(1)
      })
    )
  })
