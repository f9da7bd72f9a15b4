import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as PasswordPolicy from "../../domain/PasswordPolicy.js"
import type * as RefreshTokenFamily from "../../domain/RefreshTokenFamily.js"

/**
 * The external providers of the spec, as `/settings` names them. Their sign-in flows come
 * later; until then each one reports whether its `EXTERNAL_<X>_ENABLED` is set.
 */
export const providerKeys = [
  "apple",
  "azure",
  "bitbucket",
  "discord",
  "facebook",
  "figma",
  "github",
  "gitlab",
  "google",
  "keycloak",
  "linkedin",
  "notion",
  "slack",
  "snapchat",
  "spotify",
  "twitch",
  "twitter",
  "workos"
] as const

export type ProviderKey = (typeof providerKeys)[number]

/** Every provider off. */
export const noProviders: Readonly<Record<ProviderKey, boolean>> = {
  apple: false,
  azure: false,
  bitbucket: false,
  discord: false,
  facebook: false,
  figma: false,
  github: false,
  gitlab: false,
  google: false,
  keycloak: false,
  linkedin: false,
  notion: false,
  slack: false,
  snapchat: false,
  spotify: false,
  twitch: false,
  twitter: false,
  workos: false
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
    /** `MAILER_NOTIFICATIONS_<KIND>_ENABLED` of the changes that exist so far. */
    readonly notifications: { readonly passwordChanged: boolean }
    /** The mailed one-time tokens: `MAILER_OTP_LENGTH`, `MAILER_OTP_EXP`, `MAILER_URLPATHS_*`. */
    readonly verification: {
      readonly codeLength: number
      readonly lifetime: Duration.Duration
      readonly confirmationPath: string
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
    readonly manualLinkingEnabled: boolean
    readonly updatePasswordRequiresReauthentication: boolean
    readonly passwordPolicy: PasswordPolicy.PasswordPolicy
    readonly refreshPolicy: RefreshTokenFamily.Policy
    readonly providers: Readonly<Record<ProviderKey, boolean>>
  }
>() {}
