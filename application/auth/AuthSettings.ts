import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Option from "effect/Option"
import type * as Mail from "../../domain/auth/Mail.js"
import type * as Session from "../../domain/auth/Session.js"
import { type ExternalProviderName, externalProviderNames } from "../../domain/ExternalProviderNames.js"
import type * as PasswordPolicy from "../../domain/PasswordPolicy.js"
import type { Phone } from "../../domain/User.js"
import type { Limit } from "../ports/RateLimiter.js"

/** The external providers of the spec, as `/settings` names them (domain/ExternalProviderNames). */
export const providerKeys = externalProviderNames

export type ProviderKey = ExternalProviderName

/** Every provider off. */
export const noProviders: Readonly<Record<ProviderKey, boolean>> = {
  apple: false,
  azure: false,
  bitbucket: false,
  discord: false,
  facebook: false,
  figma: false,
  fly: false,
  github: false,
  gitlab: false,
  google: false,
  kakao: false,
  keycloak: false,
  linkedin: false,
  linkedin_oidc: false,
  notion: false,
  slack: false,
  slack_oidc: false,
  snapchat: false,
  spotify: false,
  twitch: false,
  twitter: false,
  workos: false,
  x: false,
  zoom: false
}

/**
 * Where each kind's mailed link goes, an absolute URL (`MAILER_URLPATHS_INVITE`, `_CONFIRMATION`,
 * `_RECOVERY` and `_EMAIL_CHANGE`, resolved against `API_EXTERNAL_URL`); its query is replaced by
 * the link's own.
 */
export interface VerificationLinks {
  readonly invite: string
  readonly confirmation: string
  readonly recovery: string
  readonly emailChange: string
}

/** What the auth service's use cases read of its configuration, decided at start. */
export class AuthSettings extends Context.Tag("latchkey/auth/AuthSettings")<
  AuthSettings,
  {
    readonly siteUrl: string
    /** `API_EXTERNAL_URL`: where mailed links point, without a trailing slash. */
    readonly externalUrl: string
    /**
     * Where a flow sends the browser: `requested` when `SITE_URL` and `URI_ALLOW_LIST` allow
     * it (RedirectAllowList), else `SITE_URL`, as in Supabase Auth.
     */
    readonly redirectTarget: (requested: string) => string
    /** The notifications whose `MAILER_NOTIFICATIONS_<KIND>_ENABLED` is on. */
    readonly notifications: ReadonlySet<Mail.Notification>
    /** The mailed one-time tokens: `MAILER_OTP_LENGTH`, `MAILER_OTP_EXP`, `MAILER_URLPATHS_*`. */
    readonly verification: {
      readonly codeLength: number
      readonly lifetime: Duration.Duration
      /** `MAILER_URLPATHS_<KIND>`: the path of each link (a magic link takes recovery's). */
      readonly links: VerificationLinks
      /** `MAILER_SECURE_EMAIL_CHANGE_ENABLED`: the current address confirms a change too. */
      readonly secureEmailChange: boolean
      /** `SMTP_MAX_FREQUENCY`: least time between two mails of one kind to one user. */
      readonly spacing: Duration.Duration
    }
    /** `JWT_AUD`: the audience of users created here (Supabase: `authenticated`). */
    readonly audience: string
    /** `JWT_EXP`: access-token lifetime. */
    readonly accessTokenLifetime: Duration.Duration
    /** `JWT_ADMIN_ROLES`: the `role` claims that may call /admin. */
    readonly adminRoles: ReadonlyArray<string>
    readonly disableSignup: boolean
    readonly emailEnabled: boolean
    readonly phoneEnabled: boolean
    readonly anonymousEnabled: boolean
    readonly mailerAutoconfirm: boolean
    readonly smsAutoconfirm: boolean
    /** `SMS_PROVIDER`, as /settings reports it; empty when none. */
    readonly smsProvider: string
    /**
     * Messages with a link or code, all users together (`RATE_LIMIT_EMAIL_SENT`,
     * `RATE_LIMIT_SMS_SENT`), counted in the database so every instance shares them.
     */
    readonly limits: { readonly emailSent: Limit; readonly smsSent: Limit }
    /**
     * The least time the answers that must not tell whether an address has an account take
     * (`SendVerification.evenlyTimed`); zero in tests that do not measure it.
     */
    readonly answerFloor: Duration.Duration
    /** Texted codes: `SMS_OTP_LENGTH`, `SMS_OTP_EXP`, `SMS_MAX_FREQUENCY`, `SMS_TEMPLATE`, `SMS_TEST_OTP`. */
    readonly sms: {
      readonly codeLength: number
      readonly lifetime: Duration.Duration
      /** Least time between two texts of one kind to one user. */
      readonly spacing: Duration.Duration
      /** The text that carries `code` (`SMS_TEMPLATE` rendered). */
      readonly text: (code: string) => string
      /** The fixed code of a test number (`SMS_TEST_OTP`) while `SMS_TEST_OTP_VALID_UNTIL` has not passed. */
      readonly testCode: (phone: Phone, now: Date) => Option.Option<string>
    }
    readonly manualLinkingEnabled: boolean
    /**
     * `CUSTOM_OAUTH_ENABLED` (default on) and `CUSTOM_OAUTH_MAX_PROVIDERS` (0: no limit): the
     * admin API's custom providers and their sign-ins.
     */
    readonly customProviders: { readonly enabled: boolean; readonly quota: Option.Option<number> }
    readonly updatePasswordRequiresReauthentication: boolean
    /**
     * `SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD`: a user who has a password names it
     * (`current_password`) to set another, but in a session a recovery began.
     */
    readonly updatePasswordRequiresCurrentPassword: boolean
    readonly passwordPolicy: PasswordPolicy.PasswordPolicy
    readonly refreshPolicy: Session.RefreshPolicy
    /**
     * How long a session may last (`SESSIONS_TIMEBOX`, `_INACTIVITY_TIMEOUT`, `_ALLOW_LOW_AAL`,
     * `_SINGLE_PER_USER`).
     */
    readonly sessionLimits: Session.Limits
    /**
     * `EXTERNAL_FLOW_STATE_EXPIRY_DURATION`: how long an authorization code may wait for its
     * exchange (`FlowState.lifetime`), and the provider login page at least as long.
     */
    readonly flowStateLifetime: Duration.Duration
    readonly providers: Readonly<Record<ProviderKey, boolean>>
  }
>() {}
