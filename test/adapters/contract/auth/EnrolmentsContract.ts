import { createHash, randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { type Enrolment, Enrolments } from "../../../../application/auth/ports/Enrolments.js"
import { FlowStateStore } from "../../../../application/auth/ports/FlowStateStore.js"
import { MailOutbox } from "../../../../application/auth/ports/MailOutbox.js"
import { OneTimeTokenStore } from "../../../../application/auth/ports/OneTimeTokenStore.js"
import {
  EmailExists,
  IdentityExists,
  PhoneExists,
  UserRepository
} from "../../../../application/auth/ports/UserRepository.js"
import { FlowState, FlowStateId } from "../../../../domain/auth/FlowState.js"
import { Message } from "../../../../domain/auth/Mail.js"
import { codeSubject, OneTimeToken, OneTimeTokenId } from "../../../../domain/auth/OneTimeToken.js"
import { SecretHash } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import type { User } from "../../../../domain/User.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import { concurrently } from "../Storage.js"
import type { It } from "./AuthStorage.js"
import { drain } from "./MailOutboxContract.js"

const digest = (value: string) => SecretHash.make(createHash("sha256").update(value).digest("hex"))

const lease = Duration.minutes(2)

/** The messages queued since the last drain, by recipient. */
const queuedTo = Effect.gen(function* () {
  const outbox = yield* MailOutbox
  const claimed = yield* outbox.claim(new Date("2100-01-01T00:00:00Z"), 100_000, lease)
  return claimed.map((queued) => queued.message.to).sort()
})

/**
 * An enrolment of `user` (an email user with its `email` identity unless others are given), with
 * a confirmation token of link `lkv_<random>` and code 123456, a PKCE flow when `withFlow`.
 */
export const enrolmentOf = (
  user: User,
  options: { readonly withFlow?: boolean; identities?: Enrolment["identities"] } = {}
) => {
  const link = `lkv_${randomUUID()}`
  const flow = options.withFlow
    ? Option.some(
        new FlowState({
          id: FlowStateId.make(randomUUID()),
          userId: user.id,
          codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
          codeChallengeMethod: "s256",
          authenticationMethod: "otp",
          authCodeHash: Option.none(),
          authCodeIssuedAt: Option.none(),
          providerTokens: Option.none(),
          createdAt: Fixtures.t0
        })
      )
    : Option.none()
  const to = Option.getOrElse(user.email, () => "")
  const enrolment: Enrolment = {
    user,
    identities: options.identities ?? [Fixtures.emailIdentity(user)],
    passwordHash: Option.none(),
    flow,
    token: new OneTimeToken({
      id: OneTimeTokenId.make(randomUUID()),
      userId: user.id,
      purpose: "confirmation",
      sentTo: to,
      linkHash: digest(link),
      codeHash: digest(codeSubject(user.id, "123456")),
      failedAttempts: 0,
      createdAt: Fixtures.t0,
      expiresAt: Time.plus(Fixtures.t0, "1 hour"),
      usedAt: Option.none(),
      flowStateId: Option.map(flow, (started) => started.id)
    }),
    mail: new Message({
      kind: "confirmation",
      to,
      variables: {
        ConfirmationURL: `https://auth.example.com/verify?token=${link}`,
        Data: { full_name: "Ada" }
      }
    }),
    now: Fixtures.t0
  }
  return { enrolment, link }
}

/** Whether anything of the enrolment was written: its user, its token or its flow. */
const traces = (enrolment: Enrolment, link: string) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    const tokens = yield* OneTimeTokenStore
    return {
      user: Option.isSome(yield* users.findById(enrolment.user.id)),
      token: Option.isSome(yield* tokens.useLink(digest(link), ["confirmation"], Fixtures.t0))
    }
  })

const soon = Time.plus(Fixtures.t0, "1 minute")

export const enrolmentsContract = (it: It) =>
  describe("Enrolments", () => {
    it.effect(
      "an enrolment writes the user with a password and identities, the flow, the token and the mail",
      () =>
        Effect.gen(function* () {
          const enrolments = yield* Enrolments
          const users = yield* UserRepository
          yield* drain
          const user = Fixtures.user({
            userMetadata: { full_name: "Ada", "nested key": { a: [1, 2] } },
            confirmationSentAt: Option.some(Fixtures.t0)
          })
          const { enrolment } = enrolmentOf(user, { withFlow: true })
          yield* enrolments.enrol({
            ...enrolment,
            passwordHash: Option.some("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA")
          })

          expect(yield* users.findWithIdentities(user.id)).toEqual(
            Option.some({ user, identities: enrolment.identities })
          )
          expect(yield* users.findPasswordHash(user.id)).toEqual(
            Option.some("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA")
          )
          // The code works, for the token of the flow.
          const used = yield* Effect.flatMap(OneTimeTokenStore, (tokens) =>
            tokens.useCode(user.id, ["confirmation"], digest(codeSubject(user.id, "123456")), soon)
          )
          // As issued; whether the answer carries the use's time is not the contract's to say.
          expect(
            used._tag === "Used" ? new OneTimeToken({ ...used.token, usedAt: Option.none() }) : used
          ).toEqual(enrolment.token)
          const flowId = Option.getOrThrow(enrolment.flow).id
          expect(
            yield* Effect.flatMap(FlowStateStore, (flows) => flows.issueCode(flowId, digest("code"), soon))
          ).toBe(true)
          const outbox = yield* MailOutbox
          const claimed = yield* outbox.claim(Time.plus(Fixtures.t0, "1 second"), 10, lease)
          expect(claimed.map((queued) => queued.message)).toEqual([enrolment.mail])
          expect(claimed[0]?.queuedAt).toEqual(Fixtures.t0)
        })
    )

    it.effect("an address, a number or an identity already someone's: its error, and nothing written", () =>
      Effect.gen(function* () {
        const enrolments = yield* Enrolments
        const users = yield* UserRepository
        yield* drain
        const phone = Fixtures.phone()
        const owner = Fixtures.user({ phone: Option.some(phone) })
        const ownIdentity = Fixtures.emailIdentity(owner)
        yield* users.insert(owner, [ownIdentity], Option.none())

        const sameAddress = enrolmentOf(Fixtures.user({ email: owner.email }))
        const sameNumber = enrolmentOf(Fixtures.user({ phone: Option.some(phone) }))
        const other = Fixtures.user()
        const sameIdentity = enrolmentOf(other, {
          identities: [Fixtures.emailIdentity(other, { providerId: ownIdentity.providerId })]
        })
        const refused = yield* Effect.forEach(
          [sameAddress, sameNumber, sameIdentity],
          ({ enrolment }) => Effect.either(enrolments.enrol(enrolment)),
          { concurrency: "unbounded" }
        )
        expect(refused.map(Either.getLeft)).toEqual([
          Option.some(new EmailExists({ email: Option.getOrThrow(owner.email) })),
          Option.some(new PhoneExists({ phone })),
          Option.some(new IdentityExists({ provider: "email", providerId: ownIdentity.providerId }))
        ])
        for (const { enrolment, link } of [sameAddress, sameNumber, sameIdentity]) {
          expect(yield* traces(enrolment, link)).toEqual({ user: false, token: false })
        }
        expect(yield* queuedTo).toEqual([])
      })
    )

    it.effect(`${concurrently} enrolments at once: each new address written once, with one mail each`, () =>
      Effect.gen(function* () {
        const enrolments = yield* Enrolments
        yield* drain
        // Ten requests for one new address among forty for addresses of their own.
        const shared = Fixtures.email()
        const all = Array.from({ length: concurrently }, (_, i) =>
          enrolmentOf(Fixtures.user(i < 10 ? { email: Option.some(shared) } : {}))
        )
        const outcomes = yield* Effect.forEach(
          all,
          ({ enrolment }) => Effect.either(enrolments.enrol(enrolment)),
          {
            concurrency: "unbounded"
          }
        )
        const refused = outcomes.flatMap((outcome) => Option.toArray(Either.getLeft(outcome)))
        expect(refused).toEqual(Array.from({ length: 9 }, () => new EmailExists({ email: shared })))
        const expected = all.flatMap(({ enrolment }, i) =>
          i >= 10 || Either.isRight(outcomes[i] ?? Either.left(undefined)) ? [enrolment.mail.to] : []
        )
        expect(yield* queuedTo).toEqual(expected.sort())
        expect(expected.filter((to) => to === shared)).toHaveLength(1)
        for (const [i, { enrolment, link }] of all.entries()) {
          const written = Either.isRight(outcomes[i] ?? Either.left(undefined))
          expect(yield* traces(enrolment, link)).toEqual({ user: written, token: written })
        }
      })
    )
  })
