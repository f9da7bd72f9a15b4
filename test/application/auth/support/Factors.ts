import { createHmac, randomBytes } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as DatabaseEncryption from "../../../../adapters/crypto/auth/DatabaseEncryption.js"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import { type ChallengeRequest, challengeFactor } from "../../../../application/auth/ChallengeFactor.js"
import { type EnrollRequest, enrollFactor } from "../../../../application/auth/EnrollFactor.js"
import { owningFactor } from "../../../../application/auth/FactorInput.js"
import type * as IssueSession from "../../../../application/auth/IssueSession.js"
import { FactorStore } from "../../../../application/auth/ports/FactorStore.js"
import { SessionStore } from "../../../../application/auth/ports/SessionStore.js"
import { signInWithPassword } from "../../../../application/auth/SignInWithPassword.js"
import { type VerifyRequest, verifyFactor } from "../../../../application/auth/VerifyFactor.js"
import { VerifiedClaims } from "../../../../domain/auth/AccessTokenClaims.js"
import { defaultLimits, Factor, FactorId, type FactorType } from "../../../../domain/auth/Factor.js"
import * as Session from "../../../../domain/auth/Session.js"
import type { UserId } from "../../../../domain/Ids.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import { client, freshEmail, password, signedUp } from "./Scenarios.js"

/**
 * TOTP for the tests, written from RFC 6238 and RFC 4226 with node:crypto alone, so that a
 * mistake in the service's TOTP (otpauth, the window, the step) is not repeated here.
 */
const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

/** RFC 4648 base32 without padding, as authenticator apps read secrets. */
const base32 = (bytes: Uint8Array): string => {
  let bits = ""
  for (const byte of bytes) bits += byte.toString(2).padStart(8, "0")
  let out = ""
  for (let i = 0; i < bits.length; i += 5)
    out += alphabet[Number.parseInt(bits.slice(i, i + 5).padEnd(5, "0"), 2)]
  return out
}

const fromBase32 = (text: string): Buffer => {
  let bits = ""
  for (const char of text) bits += alphabet.indexOf(char).toString(2).padStart(5, "0")
  const bytes: Array<number> = []
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(Number.parseInt(bits.slice(i, i + 8), 2))
  return Buffer.from(bytes)
}

/** A fresh 20-byte secret in base32, as an enrolment makes one. */
export const newSecret = (): string => base32(randomBytes(20))

/** The 6-digit code of `secret` for the 30-second step `step` (HOTP of the step, RFC 4226 §5.3). */
export const codeOfStep = (secret: string, step: number): string => {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(step))
  const digest = createHmac("sha1", fromBase32(secret)).update(counter).digest()
  const offset = (digest[digest.length - 1] ?? 0) & 0x0f
  const binary = digest.readUInt32BE(offset) & 0x7fffffff
  return String(binary % 1_000_000).padStart(6, "0")
}

/** The step at the test clock's now, moved by `offset` steps. */
export const stepNow = (offset = 0) =>
  Effect.map(Clock.currentTimeMillis, (millis) => Math.floor(millis / 1000 / 30) + offset)

/** The code at the test clock's now, `offset` steps away. */
export const codeNow = (secret: string, offset = 0) =>
  Effect.map(stepNow(offset), (step) => codeOfStep(secret, step))

/**
 * An unverified factor of `userId` stored as an enrolment stores it (the enrol endpoint is built
 * beside these), with a TOTP secret for TOTP factors.
 */
export const enrolled = (
  userId: UserId,
  factorType: FactorType,
  fields: {
    readonly phone?: string
    readonly friendlyName?: string
    /** A TOTP secret stored sealed under these keys, as with `SECURITY_DB_ENCRYPTION_ENCRYPT`. */
    readonly sealedUnder?: DatabaseEncryption.Keys
  } = {}
) =>
  Effect.gen(function* () {
    const now = new Date(yield* Clock.currentTimeMillis)
    const secret = newSecret()
    const factor = new Factor({
      id: FactorId.make(crypto.randomUUID()),
      userId,
      friendlyName: fields.friendlyName ?? crypto.randomUUID(),
      factorType,
      status: "unverified",
      phone: Option.fromNullable(fields.phone),
      lastChallengedAt: Option.none(),
      createdAt: now,
      updatedAt: now
    })
    yield* Effect.flatMap(FactorStore, (store) =>
      store.enrol(
        factor,
        factorType === "totp"
          ? Option.some(
              DatabaseEncryption.seal(fields.sealedUnder ?? DatabaseEncryption.none, factor.id, secret)
            )
          : Option.none(),
        defaultLimits
      )
    )
    return { factor, secret }
  })

/** The keys of `SECURITY_DB_ENCRYPTION_*` switched on: `key-1` seals, and opens. */
export const atRestKeys: DatabaseEncryption.Keys = {
  sealing: Option.some({ keyId: "key-1", key: new Uint8Array(32).fill(1) }),
  opening: new Map([["key-1", new Uint8Array(32).fill(1)]])
}

/** The memory world with secrets sealed at rest under `atRestKeys`. */
export const sealingWorld = (mfa: Parameters<typeof MemoryServices.mfaSettings>[0] = {}) =>
  Layer.merge(world(mfa), DatabaseEncryption.layer(atRestKeys))

/** The signed-in user a grant's access token names. */
export const signedInAs = (grant: IssueSession.Grant) => Authenticate.user(Redacted.value(grant.access.token))

/** The memory world with the factor settings, every factor type on. */
export const services = (
  overrides: Parameters<typeof MemoryServices.layer>[0] = {},
  mfa: Parameters<typeof MemoryServices.mfaSettings>[0] = {}
) => Layer.merge(MemoryServices.layer(overrides), MemoryServices.mfaSettings(mfa))

/** The memory world with the factor settings (every type on, Supabase Auth's limits). */
export const world = (
  mfa: Parameters<typeof MemoryServices.mfaSettings>[0] = {},
  settings: Parameters<typeof MemoryServices.layer>[0] = {}
) =>
  Layer.merge(MemoryServices.layer({ anonymousEnabled: true, ...settings }), MemoryServices.mfaSettings(mfa))

/** A user signed up by address, as their access token names them. */
export const signedInUser = (email: string = freshEmail()) =>
  Effect.gen(function* () {
    const grant = yield* signedUp(email)
    return yield* Authenticate.user(Redacted.value(grant.access.token))
  })

/** The same caller with a token claiming aal2 (what a verify's token says). */
export const atAal2 = (signedIn: Authenticate.SignedIn): Authenticate.SignedIn => ({
  ...signedIn,
  claims: new VerifiedClaims({ ...signedIn.claims, aal: "aal2" }),
  session: Option.map(signedIn.session, (session) => new Session.Session({ ...session, aal: "aal2" }))
})

/** An enrolment request with nothing set but the type (and what `more` adds). */
export const request = (factorType: string, more: Partial<EnrollRequest> = {}): EnrollRequest => ({
  factorType,
  friendlyName: "",
  issuer: "",
  phone: "",
  ...more
})

/** Marks a factor verified, as its first successful verify does. */
export const verified = (signedIn: Authenticate.SignedIn, factorId: FactorId) =>
  Effect.gen(function* () {
    const now = new Date(yield* Clock.currentTimeMillis)
    yield* Effect.flatMap(FactorStore, (store) =>
      store.markVerified(signedIn.user.id, factorId, now, Option.none())
    )
  })

/** A TOTP factor enrolled under `friendlyName`; its id. */
export const totp = (signedIn: Authenticate.SignedIn, friendlyName: string) =>
  Effect.map(enrollFactor(signedIn, request("totp", { friendlyName })), (enrolled) => enrolled.factor.id)

/** The caller's session raised by `factorId`, as its verify raises it; the session as it is then. */
export const raisedBy = (
  signedIn: Authenticate.SignedIn,
  factorId: FactorId,
  factorType: FactorType = "totp"
) =>
  Effect.gen(function* () {
    const session = yield* Effect.fromNullable(Option.getOrUndefined(signedIn.session))
    const now = new Date(yield* Clock.currentTimeMillis)
    const sessions = yield* SessionStore
    yield* sessions.raise({
      sessionId: session.id,
      factorId,
      factorType,
      child: Fixtures.refreshToken().hash,
      now
    })
    return Option.getOrThrow(yield* sessions.findById(session.id))
  }).pipe(Effect.orDie)

/** The caller's session as it stands. */
export const sessionOf = (signedIn: Authenticate.SignedIn) =>
  Effect.gen(function* () {
    const session = yield* Effect.fromNullable(Option.getOrUndefined(signedIn.session))
    const sessions = yield* SessionStore
    return Option.getOrThrow(yield* sessions.findById(session.id))
  }).pipe(Effect.orDie)

/** A user signed up by address and signed in again: the callers of their two sessions. */
export const twoSessions = () =>
  Effect.gen(function* () {
    const email = freshEmail()
    const first = yield* signedInUser(email)
    const again = yield* signInWithPassword({ email, phone: "", password, client })
    return { signedIn: first, elsewhere: yield* signedInAs(again.grant) }
  }).pipe(Effect.orDie)

/** The path's `{factor_id}`, unchecked, beside a request's body. */
interface OfFactor {
  readonly factorId: string
}

/**
 * `POST /factors/{factor_id}/challenge` as its endpoint runs it: the caller's factor of the path
 * (`owningFactor`, the caller check), then the use case.
 */
export const challengeAs = (signedIn: Authenticate.SignedIn, request: ChallengeRequest & OfFactor) =>
  Effect.flatMap(owningFactor(signedIn, request.factorId), (owner) => challengeFactor(owner, request))

/** `POST /factors/{factor_id}/verify` as its endpoint runs it (`challengeAs`). */
export const verifyAs = (signedIn: Authenticate.SignedIn, request: VerifyRequest & OfFactor) =>
  Effect.flatMap(owningFactor(signedIn, request.factorId), (owner) => verifyFactor(owner, request))
