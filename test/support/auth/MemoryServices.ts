import * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as DatabaseEncryption from "../../../adapters/crypto/auth/DatabaseEncryption.js"
import * as JoseAccessTokens from "../../../adapters/crypto/auth/JoseAccessTokens.js"
import * as OtpauthTotpCodes from "../../../adapters/crypto/auth/OtpauthTotpCodes.js"
import * as NodeSecrets from "../../../adapters/crypto/NodeSecrets.js"
import * as AuthStorageMemory from "../../../adapters/memory/auth/AuthStorageMemory.js"
import * as SigningKeyStoreMemory from "../../../adapters/memory/auth/SigningKeyStoreMemory.js"
import * as PasswordHasherMemory from "../../../adapters/memory/PasswordHasherMemory.js"
import * as RateLimiterMemory from "../../../adapters/memory/RateLimiterMemory.js"
import * as SimpleWebAuthnCeremonies from "../../../adapters/webauthn/auth/SimpleWebAuthnCeremonies.js"
import { AuthSettings, noProviders } from "../../../application/auth/AuthSettings.js"
import { JwtSettings } from "../../../application/auth/JwtSettings.js"
import { MfaSettings } from "../../../application/auth/MfaSettings.js"
import * as FlowState from "../../../domain/auth/FlowState.js"
import type * as Mail from "../../../domain/auth/Mail.js"
import { authPolicy } from "../../../domain/auth/RefreshPolicy.js"
import * as Session from "../../../domain/auth/Session.js"
import * as PasswordPolicy from "../../../domain/PasswordPolicy.js"
import * as SentTexts from "./SentTexts.js"

/** The reuse interval of these settings. */
export const reuseInterval = Duration.seconds(10)

type Settings = (typeof AuthSettings)["Service"]

/** The auth service's settings for use-case tests: autoconfirm on, every sign-up method on. */
export const settings = (overrides: Partial<Settings> = {}) =>
  Layer.succeed(AuthSettings, {
    siteUrl: "http://localhost:3000",
    externalUrl: "http://localhost:8081",
    redirectTarget: (requested) =>
      requested.startsWith("http://localhost:3000") ? requested : "http://localhost:3000",
    notifications: new Set<Mail.Notification>(),
    verification: {
      codeLength: 6,
      lifetime: Duration.days(1),
      links: {
        invite: "http://localhost:8081/verify",
        confirmation: "http://localhost:8081/verify",
        recovery: "http://localhost:8081/verify",
        emailChange: "http://localhost:8081/verify"
      },
      secureEmailChange: true,
      spacing: Duration.seconds(60)
    },
    audience: "authenticated",
    accessTokenLifetime: Duration.hours(1),
    adminRoles: ["service_role"],
    disableSignup: false,
    emailEnabled: true,
    phoneEnabled: true,
    anonymousEnabled: true,
    mailerAutoconfirm: true,
    smsAutoconfirm: true,
    smsProvider: "memory",
    answerFloor: Duration.zero,
    limits: {
      emailSent: { max: 1_000_000, window: Duration.hours(1) },
      smsSent: { max: 1_000_000, window: Duration.hours(1) }
    },
    sms: {
      codeLength: 6,
      lifetime: Duration.minutes(1),
      spacing: Duration.minutes(1),
      text: (code) => `Your code is ${code}`,
      testCode: () => Option.none()
    },
    manualLinkingEnabled: false,
    customProviders: { enabled: true, quota: Option.none() },
    updatePasswordRequiresReauthentication: false,
    updatePasswordRequiresCurrentPassword: false,
    passwordPolicy: PasswordPolicy.make({}),
    refreshPolicy: authPolicy({ rotationEnabled: true, reuseInterval }),
    sessionLimits: Session.unlimited,
    flowStateLifetime: FlowState.minimumLifetime,
    providers: noProviders,
    ...overrides
  })

type Mfa = (typeof MfaSettings)["Service"]

/**
 * The factor and passkey settings for use-case tests: every factor type and passkeys on, the
 * relying party on localhost, Supabase Auth's limits and lifetimes.
 */
export const mfaSettings = (overrides: Partial<Mfa> = {}) =>
  Layer.succeed(MfaSettings, {
    limits: { maxEnrolled: 10, maxVerified: 10 },
    unverifiedLifetime: Duration.seconds(300),
    challengeLifetime: Duration.seconds(300),
    switches: {
      totp: { enroll: true, verify: true },
      phone: { enroll: true, verify: true },
      webauthn: { enroll: true, verify: true },
      recovery_code: { enroll: true, verify: true }
    },
    phone: { codeLength: 6, spacing: Duration.minutes(1), text: (code) => `Your code is ${code}` },
    relyingParty: Option.some({
      id: "localhost",
      displayName: "latchkey tests",
      origins: ["http://localhost:3000"]
    }),
    passkeys: { enabled: true, maxPerUser: 10, challengeLifetime: Duration.minutes(5) },
    ...overrides
  })

/** Access tokens with keys kept in memory, reread on every use, valid an hour. */
const tokens = JoseAccessTokens.layer.pipe(
  Layer.provideMerge(
    Layer.merge(
      Layer.succeed(JwtSettings, {
        issuer: "http://localhost:8081",
        lifetime: Duration.hours(1),
        validMethods: ["RS256", "ES256", "EdDSA", "HS256"],
        secret: Option.none(),
        keys: [],
        keyCacheLifetime: Duration.zero
      }),
      SigningKeyStoreMemory.layer
    )
  )
)

/** Every port of the auth service's use cases on memory adapters, deterministic under TestClock. */
export const layer = (overrides: Partial<Settings> = {}) =>
  Layer.mergeAll(
    settings(overrides),
    tokens,
    AuthStorageMemory.layer,
    NodeSecrets.layer,
    OtpauthTotpCodes.layer,
    DatabaseEncryption.layer(DatabaseEncryption.none),
    SimpleWebAuthnCeremonies.layer.pipe(Layer.provide(NodeSecrets.layer)),
    PasswordHasherMemory.layer,
    SentTexts.layer,
    RateLimiterMemory.layer
  )

/** A sign-up request as supabase-js `signUp({ email, password })` sends it, nothing else set. */
export const emailSignup = (email: string, password: string) => ({
  email,
  phone: "",
  password,
  data: {},
  codeChallenge: "",
  codeChallengeMethod: "",
  redirectTo: "",
  channel: "",
  client: { userAgent: Option.none(), ip: Option.none() }
})
