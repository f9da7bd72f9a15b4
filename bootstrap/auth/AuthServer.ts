import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as CaptchaProviders from "../../adapters/captcha/auth/CaptchaProviders.js"
import * as JoseIdTokenVerifier from "../../adapters/crypto/auth/JoseIdTokenVerifier.js"
import * as HashingGate from "../../adapters/crypto/HashingGate.js"
import * as HashingThreads from "../../adapters/crypto/HashingThreads.js"
import * as PicomatchGlob from "../../adapters/glob/PicomatchGlob.js"
import { AuthHttpConfig } from "../../adapters/http/auth/AuthHttpConfig.js"
import * as ErrorResponse from "../../adapters/http/auth/ErrorResponse.js"
import * as Routes from "../../adapters/http/auth/Routes.js"
import * as Server from "../../adapters/http/Server.js"
import * as ExternalProviderRegistry from "../../adapters/idp/auth/ExternalProviderRegistry.js"
import * as ProviderEndpointsGuarded from "../../adapters/idp/auth/ProviderEndpointsGuarded.js"
import * as ProviderCatalog from "../../adapters/idp/ProviderCatalog.js"
import * as GoTemplate from "../../adapters/mail/auth/GoTemplate.js"
import * as SmtpMailer from "../../adapters/mail/auth/SmtpMailer.js"
import * as TemplateMailComposer from "../../adapters/mail/auth/TemplateMailComposer.js"
import * as AuthTables from "../../adapters/postgres/auth/AuthTables.js"
import * as DatabaseProbePg from "../../adapters/postgres/DatabaseProbePg.js"
import * as DatabaseUnavailable from "../../adapters/postgres/DatabaseUnavailable.js"
import * as JobLockPg from "../../adapters/postgres/JobLockPg.js"
import * as Migrations from "../../adapters/postgres/Migrations.js"
import * as NoSmsGateway from "../../adapters/sms/auth/NoSmsGateway.js"
import * as SmsGateways from "../../adapters/sms/auth/SmsGateways.js"
import { AuthSettings, noProviders } from "../../application/auth/AuthSettings.js"
import type { CaptchaSettings } from "../../application/auth/Captcha.js"
import { concurrentAttempts, deliverForever } from "../../application/auth/DeliverMail.js"
import { ensureSigningKey } from "../../application/auth/EnsureSigningKey.js"
import { MfaSettings } from "../../application/auth/MfaSettings.js"
import type { CaptchaVerifier } from "../../application/auth/ports/CaptchaVerifier.js"
import type { ExternalProvider, ExternalProviders } from "../../application/auth/ports/ExternalProviders.js"
import type { SmsSender } from "../../application/auth/ports/SmsSender.js"
import { reapExpired } from "../../application/auth/ReapExpired.js"
import * as SendVerification from "../../application/auth/SendVerification.js"
import { authPolicy } from "../../domain/auth/RefreshPolicy.js"
import * as RedirectAllowList from "../../domain/RedirectAllowList.js"
import * as OutboundReach from "../OutboundReach.js"
import * as Telemetry from "../Telemetry.js"
import * as Version from "../Version.js"
import * as AuthConfigModule from "./AuthConfig.js"
import { type AuthConfig, allowedPrivateAddressesVariable } from "./AuthConfig.js"
import * as AuthLayers from "./AuthLayers.js"
import * as ExternalConfig from "./ExternalConfig.js"

/** What only tests (and `npm start`'s development defaults) set. */
export interface ServeOptions {
  /** Spans go here instead of to an OTLP collector. */
  readonly spanProcessor?: SpanProcessor | undefined
  /** How long requests in flight may take to finish once shutdown starts. */
  readonly shutdownTimeout?: Duration.DurationInput | undefined
  /** How long the stored signing keys are reused before being read again (30 s). */
  readonly keyCacheLifetime?: Duration.DurationInput | undefined
  /** Warnings about the configuration to log once the logger is up (AuthStart.Loaded). */
  readonly warnings?: ReadonlyArray<string> | undefined
  /** Start-up lines to log once the logger is up (AuthStart.Loaded's notices). */
  readonly notices?: ReadonlyArray<string> | undefined
  /** The variables that set the port, for the line that says it is taken (AuthStart.Loaded). */
  readonly portVariables?: string | undefined
  /**
   * Run once the service listens: lines that tell a developer the service is ready to be called
   * (`latchkey dev`'s API keys), so that a script started at them is not refused.
   */
  readonly listening?: Effect.Effect<void> | undefined
  /** The SMS gateway, over the one `SMS_PROVIDER` names (the development inbox's sink). */
  readonly smsSender?: Layer.Layer<SmsSender> | undefined
  /** The external providers, over those `EXTERNAL_<X>_*` configures (local fakes of them). */
  readonly externalProviders?: Layer.Layer<ExternalProviders> | undefined
  /**
   * Where `AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES` came from when it was not set (`latchkey
   * dev`'s default), for the start-up line that lists it.
   */
  readonly privateAddressesSource?: string | undefined
  /**
   * Supabase Auth's name an operator wrote for one of ours, by ours (AuthStart.Loaded): the
   * start-up lines name a variable as it was written.
   */
  readonly writtenNames?: ReadonlyMap<string, string> | undefined
  /**
   * Tests only: every endpoint of a provider at this origin instead, paths kept (a local fake of
   * that provider, `Credentials.endpointOrigin`), by provider name. No variable sets it.
   */
  readonly providerOrigins?: Readonly<Record<string, URL>> | undefined
  /** Captcha protection, over the one `SECURITY_CAPTCHA_*` configures (a provider's local fake). */
  readonly captcha?: Layer.Layer<CaptchaSettings | CaptchaVerifier> | undefined
}

/** A request waits at most this long for the database: a stalled database costs a 503. */
const queryTimeout = Duration.seconds(30)

/**
 * Bodies of the auth endpoints are small JSON documents, but metadata objects can be large:
 * Supabase Auth takes up to 1 MiB, and what it takes must not be refused here.
 */
const maxBodyBytes = 1024 * 1024

/**
 * An access token carries the user's metadata, so a user with much of it sends a long bearer
 * header: Go's server, and so Supabase Auth, takes headers up to 1 MiB; Node stops at 16 KiB.
 */
const maxHeaderBytes = 1024 * 1024

const serviceName = "latchkey-auth"

/** `SMS_TEMPLATE` as a function of the code; the template was checked to parse at start. */
const smsText = (template: string) => {
  const parsed = GoTemplate.parse(template)
  return (code: string) =>
    Either.match(parsed, {
      onLeft: () => code,
      onRight: (compiled) => GoTemplate.renderText(compiled, { Code: code })
    })
}

/**
 * The enabled external providers, each built from the catalog with its credentials; a
 * configuration that can never work (a plain-http issuer off this machine, with no private
 * address allowed) stops the start.
 */
export const externalProviders = (config: AuthConfig, testing: Pick<ServeOptions, "providerOrigins"> = {}) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const built = new Map<string, ExternalProvider>()
      for (const provider of config.externalProviders) {
        const entry = ProviderCatalog.find(provider.name)
        if (Option.isNone(entry)) return yield* Effect.dieMessage(`no catalog entry for ${provider.name}`)
        // One enabled without a setting its page needs is kept, unusable there (ExternalConfig).
        const upstream = yield* Option.match(provider.unusable, {
          onSome: (unusable) => Effect.succeed(Either.left(unusable.reason)),
          onNone: () =>
            Effect.map(
              entry.value.build({
                clientId: provider.clientId,
                // A usable provider has its secret (ExternalConfig: none makes it unusable).
                clientSecret: Option.getOrElse(provider.secret, () => Redacted.make("")),
                ...Option.match(provider.url, { onNone: () => ({}), onSome: (url) => ({ issuerUrl: url }) }),
                allowedPrivateAddresses: config.outbound.allowedPrivateAddresses,
                ...(testing.providerOrigins?.[provider.name] === undefined
                  ? {}
                  : { endpointOrigin: testing.providerOrigins[provider.name] })
              }),
              Either.right
            )
        })
        built.set(provider.name, {
          upstream,
          redirectUri: Option.getOrElse(provider.redirectUri, () => `${config.api.externalUrl}/callback`),
          emailOptional: provider.emailOptional,
          audiences: provider.clientIds,
          shapeClaims: entry.value.idTokenClaims ?? ((claims) => claims),
          // Facebook's Limited Login tokens carry no nonce we could check, as Supabase Auth notes.
          skipNonceCheck: provider.skipNonceCheck || provider.name === "facebook",
          idTokenIssuer: ExternalConfig.idTokenIssuer(provider),
          passThrough: entry.value.traits.parameters,
          takeHandshake: ProviderCatalog.takeHandshake
        })
      }
      const callbackBase = Option.getOrElse(config.customOAuth.externalUrl, () => config.api.externalUrl)
      return ExternalProviderRegistry.layer(built, {
        enabled: config.customOAuth.enabled,
        redirectUri: `${callbackBase.replace(/\/+$/, "")}/callback`,
        allowedPrivateAddresses: config.outbound.allowedPrivateAddresses
      })
    })
  )

/** What the use cases read of the configuration. */
export const settings = (config: AuthConfig) => {
  const allowList = RedirectAllowList.make(config.siteUrl, config.uriAllowList)
  return Layer.succeed(AuthSettings, {
    siteUrl: config.siteUrl,
    externalUrl: config.api.externalUrl,
    redirectTarget: (requested) =>
      requested !== "" && RedirectAllowList.isAllowed(allowList, requested, PicomatchGlob.glob)
        ? requested
        : config.siteUrl,
    notifications: config.mailer.notifications,
    verification: {
      codeLength: config.mailer.otpLength,
      lifetime: Duration.seconds(config.mailer.otpExpSeconds),
      links: {
        invite: AuthConfigModule.resolveLink(config.api.externalUrl, config.mailer.urlPaths.invite),
        confirmation: AuthConfigModule.resolveLink(
          config.api.externalUrl,
          config.mailer.urlPaths.confirmation
        ),
        recovery: AuthConfigModule.resolveLink(config.api.externalUrl, config.mailer.urlPaths.recovery),
        emailChange: AuthConfigModule.resolveLink(config.api.externalUrl, config.mailer.urlPaths.emailChange)
      },
      secureEmailChange: config.mailer.secureEmailChange,
      spacing: config.mailer.maxFrequency
    },
    audience: config.jwt.aud,
    accessTokenLifetime: Duration.seconds(config.jwt.expSeconds),
    adminRoles: config.jwt.adminRoles,
    disableSignup: config.disableSignup,
    emailEnabled: config.external.email,
    phoneEnabled: config.external.phone,
    anonymousEnabled: config.external.anonymousUsers,
    mailerAutoconfirm: config.mailerAutoconfirm,
    smsAutoconfirm: config.smsAutoconfirm,
    // As written, as Supabase Auth reports it, even when that gateway cannot send.
    smsProvider: Option.getOrElse(config.sms.provider, () => ""),
    limits: { emailSent: config.rateLimit.emailSent, smsSent: config.rateLimit.smsSent },
    answerFloor: SendVerification.answerFloor,
    sms: {
      codeLength: config.sms.otpLength,
      lifetime: Duration.seconds(config.sms.otpExpSeconds),
      spacing: config.sms.maxFrequency,
      text: smsText(config.sms.template),
      testCode: (phone, now) =>
        Option.exists(config.sms.testOtpValidUntil, (until) => now.getTime() >= until.getTime())
          ? Option.none()
          : Option.fromNullable(config.sms.testOtp.get(phone))
    },
    manualLinkingEnabled: config.security.manualLinkingEnabled,
    customProviders: {
      enabled: config.customOAuth.enabled,
      quota:
        config.customOAuth.maxProviders === 0 ? Option.none() : Option.some(config.customOAuth.maxProviders)
    },
    updatePasswordRequiresReauthentication: config.security.updatePasswordRequireReauthentication,
    updatePasswordRequiresCurrentPassword: config.security.updatePasswordRequireCurrentPassword,
    passwordPolicy: config.passwordPolicy,
    refreshPolicy: authPolicy({
      rotationEnabled: config.security.refreshTokenRotationEnabled,
      reuseInterval: config.security.refreshTokenReuseInterval
    }),
    sessionLimits: config.sessions,
    flowStateLifetime: config.external.flowStateExpiry,
    providers: {
      ...noProviders,
      ...Object.fromEntries(config.externalProviders.map((provider) => [provider.name, true]))
    }
  })
}

/** What the factor, recovery-code and passkey use cases read of the configuration. */
export const mfaSettings = (config: AuthConfig) =>
  Layer.succeed(MfaSettings, {
    limits: config.mfa.limits,
    unverifiedLifetime: config.mfa.factorExpiry,
    challengeLifetime: config.mfa.challengeExpiry,
    switches: config.mfa.switches,
    phone: {
      codeLength: config.mfa.phone.otpLength,
      spacing: config.mfa.phone.maxFrequency,
      text: smsText(config.mfa.phone.template)
    },
    relyingParty: config.mfa.relyingParty,
    passkeys: {
      enabled: config.mfa.passkeys.enabled,
      maxPerUser: config.mfa.passkeys.maxPerUser,
      challengeLifetime: config.mfa.webAuthnChallengeExpiry
    }
  })

/**
 * Where a request's client address is read, in order: `Svc-Forwarded-For` or Supabase Auth's
 * `Sb-Forwarded-For` when trusted, then the header a trusted proxy sets (`RATE_LIMIT_HEADER`),
 * else the socket's. Supabase Auth reads `Sb-Forwarded-For` first too, for its limits and the
 * address it records.
 */
export const clientIpHeaders = (config: AuthConfig): ReadonlyArray<string> => [
  ...(config.security.svcForwardedForEnabled
    ? ["Svc-Forwarded-For"]
    : config.security.sbForwardedForEnabled
      ? ["Sb-Forwarded-For"]
      : []),
  ...Option.toArray(config.rateLimit.header)
]

/**
 * The URLs the configuration names that the service calls out to: the providers' own addresses
 * (`EXTERNAL_<X>_URL`: a realm, an instance, a tenant) and the mail templates. The gateways and
 * captcha providers are at fixed public addresses.
 */
const configuredDestinations = (
  config: AuthConfig,
  written: (name: string) => string
): ReadonlyArray<OutboundReach.Configured> => [
  ...config.externalProviders.flatMap((provider) =>
    Option.toArray(
      Option.map(provider.url, (url) => ({
        variable: written(`AUTHSVC_EXTERNAL_${provider.name.toUpperCase()}_URL`),
        url: url.href
      }))
    )
  ),
  ...Object.entries(config.mailer.templates).map(([kind, value]) => ({
    variable: written(`AUTHSVC_MAILER_TEMPLATES_${kind.toUpperCase()}`),
    url: AuthConfigModule.resolveTemplate(config.siteUrl, value)
  }))
]

/**
 * The reaper on every instance, every `AUTHSVC_REAPER_INTERVAL`, its first run a minute after the
 * start (or one interval, if shorter); the job lock keeps it to one instance at a time.
 */
const reaper = (interval: Duration.Duration) =>
  reapExpired.pipe(
    Effect.catchAllCause((cause) => Effect.logError("reaper failed", cause)),
    Effect.repeat(Schedule.spaced(interval)),
    Effect.delay(Duration.min(interval, Duration.minutes(1)))
  )

/** How often an idle mail worker looks for due mail (one indexed statement). */
const mailPollInterval = Duration.seconds(1)

/**
 * The failures a request answers with 503 and `Retry-After` instead of 500: a database out of
 * reach, more sign-ins at once than passwords can be checked, a hashing thread that failed.
 */
export const isUnavailable = (defect: unknown): boolean =>
  DatabaseUnavailable.is(defect) ||
  defect instanceof HashingGate.HashingBusy ||
  defect instanceof HashingThreads.HashingUnavailable

/**
 * `latchkey auth serve`: migrations first (the spec applies them at start; instances starting
 * together wait for one another), a signing key on first start, then the HTTP server.
 */
export const serve = (config: AuthConfig, options: ServeOptions = {}) => {
  const core = AuthLayers.core(config, { queryTimeout }, options.keyCacheLifetime)
  const reach = config.outbound.allowedPrivateAddresses
  const written = (name: string) => options.writtenNames?.get(name) ?? name
  const outbound = Layer.scopedDiscard(
    OutboundReach.announce(
      {
        service: "auth",
        variable: written(allowedPrivateAddressesVariable),
        allowed: reach,
        source: options.privateAddressesSource
      },
      configuredDestinations(config, written)
    )
  )
  const prepared = Layer.effectDiscard(
    Effect.gen(function* () {
      for (const notice of options.notices ?? []) yield* Effect.logInfo(notice)
      for (const warning of options.warnings ?? []) yield* Effect.logWarning(warning)
      yield* Migrations.run(AuthTables.migrationTarget(config.db.namespace))
      yield* ensureSigningKey
    })
  )
  const http = Layer.succeed(AuthHttpConfig, {
    version: Version.version,
    tokenLimit: config.rateLimit.tokenRefresh,
    anonymousLimit: config.rateLimit.anonymousUsers,
    linkConfirmationPage: config.mailer.linkConfirmationPage,
    otpLimit: config.rateLimit.otp,
    verifyLimit: config.rateLimit.verify,
    factorLimit: config.rateLimit.mfaChallengeAndVerify,
    passkeyLimit: config.rateLimit.passkey
  })
  const server = Layer.scopedDiscard(
    Server.serve({
      service: "auth",
      host: config.api.host,
      port: config.api.port,
      portVariables: options.portVariables,
      routes: Routes.routes,
      problems: ErrorResponse.problems,
      cors: Routes.cors,
      maxBodyBytes,
      maxHeaderBytes,
      requestIdHeader: config.telemetry.requestIdHeader,
      clientIpHeaders: clientIpHeaders(config),
      metrics: Option.isSome(config.telemetry.metrics),
      shutdownTimeout: options.shutdownTimeout ?? Server.defaultShutdownTimeout,
      isUnavailable
    }).pipe(Effect.zipRight(options.listening ?? Effect.void))
  )
  // Every instance delivers the outbox's mail; without a mail server it stays queued.
  const mail = Option.match(config.smtp, {
    onNone: () => Layer.effectDiscard(Effect.logInfo("AUTHSVC_SMTP_HOST is unset: mail is queued, not sent")),
    onSome: (smtp) =>
      Layer.scopedDiscard(
        Effect.forkScoped(deliverForever(mailPollInterval, smtp.maxConnections ?? concurrentAttempts))
      ).pipe(
        Layer.provide(
          Layer.merge(
            SmtpMailer.layer(smtp),
            TemplateMailComposer.layer({
              subjects: config.mailer.subjects,
              templates: {
                urls: Object.fromEntries(
                  Object.entries(config.mailer.templates).map(([kind, value]) => [
                    kind,
                    AuthConfigModule.resolveTemplate(config.siteUrl, value)
                  ])
                ),
                allowedPrivateAddresses: reach
              }
            })
          )
        )
      )
  })
  const background = Layer.scopedDiscard(Effect.forkScoped(reaper(config.reaperInterval)))
  return Layer.mergeAll(server, mail, outbound, background).pipe(
    Layer.provide(
      Layer.mergeAll(
        settings(config),
        JobLockPg.layerFor(Option.isNone(config.db.url), AuthTables.make(config.db.namespace).prefix),
        mfaSettings(config),
        http,
        Telemetry.metrics(config.telemetry, { serviceName }),
        options.smsSender ??
          Option.match(config.sms.gateway, {
            onNone: () => NoSmsGateway.layer,
            onSome: (gateway) => SmsGateways.layer(gateway, { allowedPrivateAddresses: reach })
          }),
        options.captcha ??
          CaptchaProviders.layer(
            Option.map(config.captcha, (captcha) => ({ ...captcha, allowedPrivateAddresses: reach }))
          ),
        options.externalProviders ?? externalProviders(config, options),
        JoseIdTokenVerifier.layer({ allowedPrivateAddresses: reach }),
        ProviderEndpointsGuarded.layer({ allowedPrivateAddresses: reach }),
        DatabaseProbePg.layer
      )
    ),
    Layer.provide(prepared),
    Layer.provideMerge(core),
    Layer.provide(
      Telemetry.layer(config.telemetry, {
        serviceName,
        prefix: "AUTHSVC_",
        spanProcessor: options.spanProcessor,
        logFileVariable: written("AUTHSVC_LOG_FILE")
      })
    )
  )
}
