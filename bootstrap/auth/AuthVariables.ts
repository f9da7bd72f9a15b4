import * as SmsGateways from "../../adapters/sms/auth/SmsGateways.js"
import { providerKeys } from "../../application/auth/AuthSettings.js"
import * as Mail from "../../domain/auth/Mail.js"
import type { Variables } from "./AuthEnvironment.js"
import * as DbEncryptionConfig from "./DbEncryptionConfig.js"
import * as ExternalConfig from "./ExternalConfig.js"
import * as MfaConfig from "./MfaConfig.js"

/**
 * Which `AUTHSVC_` variables the auth service knows. A Supabase Auth deployment carries many
 * variables of features this service does not have yet; they must not stop it, nor pass
 * unnoticed, so each start names them on one warning line, and names any other `AUTHSVC_`
 * variable (a typo, most likely) on another. Variables without the prefix are never checked:
 * the environment is shared with everything else on the machine.
 */

export const prefix = "AUTHSVC_"

/** Every `AUTHSVC_` variable `AuthConfig.server` reads (a test holds the two together). */
export const read: ReadonlySet<string> = new Set(
  [
    "SITE_URL",
    "URI_ALLOW_LIST",
    "DISABLE_SIGNUP",
    "MAILER_AUTOCONFIRM",
    "SMS_AUTOCONFIRM",
    "PASSWORD_MIN_LENGTH",
    "PASSWORD_REQUIRED_CHARACTERS",
    "EXTERNAL_EMAIL_ENABLED",
    "EXTERNAL_PHONE_ENABLED",
    "EXTERNAL_ANONYMOUS_USERS_ENABLED",
    "EXTERNAL_FLOW_STATE_EXPIRY_DURATION",
    "RATE_LIMIT_HEADER",
    "RATE_LIMIT_TOKEN_REFRESH",
    "RATE_LIMIT_ANONYMOUS_USERS",
    "RATE_LIMIT_EMAIL_SENT",
    "RATE_LIMIT_SMS_SENT",
    "RATE_LIMIT_OTP",
    "RATE_LIMIT_VERIFY",
    "RATE_LIMIT_PASSKEY",
    "MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY",
    "SECURITY_REFRESH_TOKEN_ROTATION_ENABLED",
    "SECURITY_REFRESH_TOKEN_REUSE_INTERVAL",
    "SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION",
    "SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD",
    "SECURITY_MANUAL_LINKING_ENABLED",
    "SECURITY_SVC_FORWARDED_FOR_ENABLED",
    "SECURITY_SB_FORWARDED_FOR_ENABLED",
    "SESSIONS_TIMEBOX",
    "SESSIONS_INACTIVITY_TIMEOUT",
    "SESSIONS_ALLOW_LOW_AAL",
    "SESSIONS_SINGLE_PER_USER",
    "OUTBOUND_ALLOWED_PRIVATE_ADDRESSES",
    "REAPER_INTERVAL",
    "CUSTOM_OAUTH_ENABLED",
    "CUSTOM_OAUTH_MAX_PROVIDERS",
    "CUSTOM_OAUTH_EXTERNAL_URL",
    "API_HOST",
    "API_PORT",
    "API_EXTERNAL_URL",
    "JWT_SECRET",
    "JWT_KEYS",
    "JWT_VALID_METHODS",
    "JWT_ISSUER",
    "JWT_ADMIN_ROLES",
    "JWT_EXP",
    "JWT_AUD",
    "DB_DRIVER",
    "DB_DATABASE_URL",
    "DB_NAMESPACE",
    "DB_MAX_POOL_SIZE",
    "DB_CONN_MAX_IDLE_TIME",
    "DB_PREPARED_STATEMENTS",
    "SMTP_HOST",
    "SMTP_PORT",
    "SMTP_USER",
    "SMTP_PASS",
    "SMTP_ADMIN_EMAIL",
    "SMTP_SENDER_NAME",
    "SMTP_MAX_CONNECTIONS",
    "SMTP_MAX_FREQUENCY",
    ...Mail.Kind.literals.map((kind) => `MAILER_SUBJECTS_${kind.toUpperCase()}`),
    ...Mail.Kind.literals.map((kind) => `MAILER_TEMPLATES_${kind.toUpperCase()}`),
    "MAILER_OTP_EXP",
    "SMS_PROVIDER",
    "SMS_TEMPLATE",
    "SMS_OTP_EXP",
    "SMS_OTP_LENGTH",
    "SMS_MAX_FREQUENCY",
    "SMS_TEST_OTP",
    "SMS_TEST_OTP_VALID_UNTIL",
    ...SmsGateways.variables.map((name) => name.slice(prefix.length)),
    ...ExternalConfig.variables.map((name) => name.slice("AUTHSVC_".length)),
    ...MfaConfig.variables.map((name) => name.slice(prefix.length)),
    ...DbEncryptionConfig.variables.map((name) => name.slice(prefix.length)),
    "SECURITY_CAPTCHA_ENABLED",
    "SECURITY_CAPTCHA_PROVIDER",
    "SECURITY_CAPTCHA_SECRET",
    "SECURITY_CAPTCHA_TIMEOUT",
    ...Mail.notifications.map(
      (kind) => `MAILER_NOTIFICATIONS_${kind.replace(/_notification$/, "").toUpperCase()}_ENABLED`
    ),
    "MAILER_SECURE_EMAIL_CHANGE_ENABLED",
    "MAILER_LINK_CONFIRMATION_PAGE",
    "MAILER_OTP_LENGTH",
    "MAILER_URLPATHS_INVITE",
    "MAILER_URLPATHS_CONFIRMATION",
    "MAILER_URLPATHS_RECOVERY",
    "MAILER_URLPATHS_EMAIL_CHANGE",
    "LOG_FILE",
    "TRACING_ENABLED",
    "TRACING_EXPORTER",
    "METRICS_ENABLED",
    "METRICS_EXPORTER",
    "REQUEST_ID_HEADER",
    "DEBUG"
  ].map((name) => `${prefix}${name}`)
)

/** The spec's external providers: the keys of `external` in the /settings response. */
export const providers: ReadonlyArray<string> = providerKeys

/**
 * Families of Supabase Auth settings this service does not read (yet), by the start of the name:
 * its configuration sections, whose other members are read here. A Supabase Auth environment
 * sets many of them (the Supabase CLI sets sessions and web3 switches beside the MFA ones). The `MFA_`, `WEBAUTHN_`
 * and `PASSKEY_` families are read whole (MfaConfig), so a misspelt one is named as unknown.
 */
const laterFamilies = [
  "API_",
  "AUDIT_LOG_",
  "CORS_",
  "CUSTOM_OAUTH_",
  "DB_",
  "EXPERIMENTAL_",
  // Supabase Auth's providers and settings not read here.
  "EXTERNAL_ALLOWED_ID_TOKEN_ISSUERS",
  "EXTERNAL_EMAIL_",
  "EXTERNAL_IOS_BUNDLE_ID",
  "EXTERNAL_OIDC_PROVIDER_CACHE_TTL",
  "EXTERNAL_REDIRECTURL",
  "EXTERNAL_SKIP_NONCE_CHECK",
  "EXTERNAL_VERCEL_MARKETPLACE_",
  "EXTERNAL_WEB3_",
  "HOOK_",
  "INDEX_WORKER_",
  "JWT_",
  "LOG_",
  "MAILER_",
  "METRICS_",
  "OAUTH_SERVER_",
  "PASSWORD_",
  "PROFILER_",
  "RATE_LIMIT_",
  "RELOADING_",
  "SAML_",
  "SECURITY_",
  "SESSIONS_",
  "SMS_",
  "SMTP_",
  "TRACING_"
].map((family) => `${prefix}${family}`)

/** Single variables of later features: multi-instance mode. */
const laterNames: ReadonlySet<string> = new Set(["OPERATOR_TOKEN"].map((name) => `${prefix}${name}`))

/** A variable accepted now and read once its feature lands. */
export const isLater = (name: string): boolean =>
  !read.has(name) && (laterNames.has(name) || laterFamilies.some((family) => name.startsWith(family)))

/**
 * At most two lines: the set variables of later features, then the unknown `AUTHSVC_` ones,
 * each list sorted and each named as it was written (`sources`: the `GOTRUE_` name one of ours
 * was read from). None when every set variable is read now.
 */
export const warnings = (
  variables: Variables,
  sources: ReadonlyMap<string, string> = new Map()
): ReadonlyArray<string> => {
  const set = [...variables.keys()].filter((name) => name.startsWith(prefix) && !read.has(name))
  const written = (names: ReadonlyArray<string>) => names.map((name) => sources.get(name) ?? name).sort()
  const later = written(set.filter(isLater))
  const unknown = written(set.filter((name) => !isLater(name)))
  return [
    ...(later.length === 0 ? [] : [`ignored until their feature lands: ${later.join(", ")}`]),
    ...(unknown.length === 0 ? [] : [`unknown variables, ignored: ${unknown.join(", ")}`])
  ]
}
