import { createHash, randomBytes, randomUUID } from "node:crypto"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as AccessTokenClaims from "../../../domain/auth/AccessTokenClaims.js"
import * as Session from "../../../domain/auth/Session.js"
import { Identity } from "../../../domain/Identity.js"
import { IdentityId, SecretHash, UserId } from "../../../domain/Ids.js"
import { Email, Phone, User } from "../../../domain/User.js"

export const t0 = new Date("2026-01-01T00:00:00.000Z")

export const email = (address: string = `${randomUUID()}@example.com`) => Schema.decodeSync(Email)(address)

/** A random number as stored (E.164's digits), unlikely to repeat within a run. */
export const phone = () =>
  Schema.decodeSync(Phone)(`1${String(randomBytes(6).readUIntBE(0, 6) % 10_000_000_000).padStart(10, "5")}`)

export const user = (fields: Partial<ConstructorParameters<typeof User>[0]> = {}) =>
  new User({
    id: UserId.make(randomUUID()),
    aud: "authenticated",
    role: "authenticated",
    email: Option.some(email()),
    phone: Option.none(),
    emailConfirmedAt: Option.none(),
    phoneConfirmedAt: Option.none(),
    confirmationSentAt: Option.none(),
    invitedAt: Option.none(),
    lastSignInAt: Option.none(),
    appMetadata: { provider: "email", providers: ["email"] },
    userMetadata: {},
    isAnonymous: false,
    bannedUntil: Option.none(),
    createdAt: t0,
    updatedAt: t0,
    ...fields
  })

/** The `email` identity Supabase Auth gives a user who signs up with an address. */
export const emailIdentity = (owner: User, fields: Partial<ConstructorParameters<typeof Identity>[0]> = {}) =>
  new Identity({
    id: IdentityId.make(randomUUID()),
    userId: owner.id,
    provider: "email",
    providerId: owner.id,
    identityData: {
      sub: owner.id,
      email: Option.getOrElse(owner.email, () => ""),
      email_verified: false
    },
    email: owner.email,
    createdAt: owner.createdAt,
    updatedAt: owner.createdAt,
    lastSignInAt: Option.none(),
    ...fields
  })

/** A refresh token: its plaintext and the digest storage keeps. */
export const refreshToken = () => {
  const plaintext = Redacted.make(`lkr_${randomBytes(32).toString("base64url")}`)
  return {
    plaintext,
    hash: SecretHash.make(createHash("sha256").update(Redacted.value(plaintext)).digest("hex"))
  }
}

export const session = (userId: UserId, now: Date = t0, fields: Partial<Session.Start> = {}) =>
  Session.start(
    {
      id: Session.SessionId.make(randomUUID()),
      userId,
      aal: "aal1",
      amr: [
        new AccessTokenClaims.AmrEntry({ method: "password", timestamp: Math.floor(now.getTime() / 1000) })
      ],
      factorId: Option.none(),
      userAgent: Option.some("test-agent/1.0"),
      ip: Option.some("127.0.0.1"),
      tag: Option.none(),
      ...fields
    },
    now
  )
