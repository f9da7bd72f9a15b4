import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as JoseApiKeySigner from "../adapters/crypto/auth/JoseApiKeySigner.js"
import * as InboxSmsSender from "../adapters/devinbox/auth/InboxSmsSender.js"
import * as DevInbox from "../adapters/devinbox/DevInbox.js"
import * as InboxHttp from "../adapters/devinbox/InboxHttp.js"
import * as InboxSmtpServer from "../adapters/devinbox/InboxSmtpServer.js"
import * as Listen from "../adapters/http/Listen.js"
import * as JsonLogger from "../adapters/telemetry/JsonLogger.js"
import { apiKeys } from "../application/auth/keys/ApiKeys.js"
import { type AuthConfig, allowedPrivateAddressesVariable } from "./auth/AuthConfig.js"
import * as AuthEnvironment from "./auth/AuthEnvironment.js"
import * as AuthLayers from "./auth/AuthLayers.js"
import * as AuthServer from "./auth/AuthServer.js"
import * as AuthStart from "./auth/AuthStart.js"
import * as ConfigValues from "./ConfigValues.js"

/**
 * The development inbox of `latchkey dev` (`npm start`): the mail and texts the auth service
 * sends, kept in memory and shown on a page on loopback, so that confirmations, magic links and
 * codes work with no mail server or SMS account. Only `latchkey dev` loads this module
 * (Services.ts); `latchkey serve` and `latchkey auth serve` never start the inbox.
 */

export class DevInboxFailed extends Schema.TaggedError<DevInboxFailed>()("DevInboxFailed", {
  message: Schema.String
}) {}

/** Only loopback: the messages hold working sign-in links. */
const host = "127.0.0.1"

/** How its lines name it. */
const service = "development inbox"

/** The page's port, as the Supabase CLI's mail viewer's. */
export const defaultPort = 54324

/** `LATCHKEY_INBOX_PORT`: where the page and its API listen. */
const port = ConfigValues.portNamed("LATCHKEY_INBOX_PORT", defaultPort)

/** A port already taken ends the start with the variable that moves it. */
const moved =
  (variable: string) =>
  (error: { readonly message: string }): DevInboxFailed =>
    new DevInboxFailed({ message: `${service}: ${error.message} (${variable} moves it)` })

/** The auth service's logger and level, for the inbox's own lines. */
const logging = (config: AuthConfig) =>
  Layer.merge(
    JsonLogger.layer({
      file: Option.getOrUndefined(config.telemetry.logFile),
      variable: "AUTHSVC_LOG_FILE",
      // The auth service's own logger says when the file cannot be opened.
      unopenable: "quiet"
    }),
    Logger.minimumLogLevel(config.telemetry.logLevel)
  )

/**
 * The anon and service_role keys for the JWT secret, on the start-up log, as `supabase start`
 * prints them: what supabase-js and a server calling the admin API are created with. They come
 * once the auth service listens, so that a developer who starts a script at them is answered.
 * Under `latchkey dev` the secret is the development one (AuthStart.devSecret) unless one is set.
 */
const announceApiKeys = (start: AuthStart.Loaded) =>
  apiKeys.pipe(
    Effect.flatMap((keys) =>
      Effect.forEach(
        [
          `anon key: ${Redacted.value(keys.anon)}`,
          `service_role key: ${Redacted.value(keys.serviceRole)}`,
          start.defaulted.has("AUTHSVC_JWT_SECRET")
            ? `the API keys above are signed with the development JWT secret kept in ${AuthStart.devSecretPath(start.variables)}; set AUTHSVC_JWT_SECRET to use another`
            : "the API keys above are signed with AUTHSVC_JWT_SECRET"
        ],
        (line) => Effect.logInfo(line),
        { discard: true }
      )
    ),
    Effect.catchTag("ApiKeysUnavailable", () =>
      Effect.logWarning("no API keys: AUTHSVC_JWT_VALID_METHODS leaves out HS256, which they are signed with")
    ),
    Effect.provide(
      Layer.mergeAll(
        AuthServer.settings(start.config),
        AuthLayers.jwtSettings(start.config),
        JoseApiKeySigner.layer
      )
    )
  )

/**
 * `latchkey dev`'s auth service and its development inbox: the page and API on
 * `LATCHKEY_INBOX_PORT`, the SMTP server on the port the service sends to when the user named no
 * mail server of theirs (AuthStart.Loaded.mailToInbox), and the SMS gateway that keeps every text. The
 * port is read before anything starts, as every other setting.
 */
export const authServer = (start: AuthStart.Loaded) =>
  Effect.gen(function* () {
    const httpPort = yield* Effect.withConfigProvider(port, AuthEnvironment.provider(start.variables))
    const smtpPort = start.mailToInbox
      ? Option.map(start.config.smtp, (smtp) => smtp.port)
      : Option.none<number>()
    // Both ports are checked now, before the service's slow start-up work.
    yield* Listen.ensureFree({ service, host, port: httpPort, variables: "LATCHKEY_INBOX_PORT" })
    if (Option.isSome(smtpPort)) {
      yield* Listen.ensureFree({ service, host, port: smtpPort.value, variables: "AUTHSVC_SMTP_PORT" })
    }
    return Layer.unwrapEffect(
      Effect.map(DevInbox.make(), (inbox) => {
        const kept = Layer.succeed(DevInbox.DevInbox, inbox)
        const servers = Layer.scopedDiscard(
          Effect.gen(function* () {
            yield* InboxHttp.serve({ host, port: httpPort, portVariables: "LATCHKEY_INBOX_PORT" })
            const shows = yield* Option.match(smtpPort, {
              onNone: () => Effect.succeed("every text (mail goes to AUTHSVC_SMTP_HOST)"),
              onSome: (smtp) =>
                InboxSmtpServer.start({ host, port: smtp }).pipe(
                  Effect.mapError(moved("AUTHSVC_SMTP_PORT")),
                  Effect.map((bound) => `the mail sent to smtp://${host}:${bound} and every text`)
                )
            })
            yield* Effect.logInfo(`${service}: http://${host}:${httpPort} shows ${shows}`)
          })
        ).pipe(Layer.provide(Layer.merge(kept, logging(start.config))))
        const auth = AuthServer.serve(start.config, {
          warnings: start.warnings,
          notices: start.notices,
          portVariables: start.portVariables,
          listening: announceApiKeys(start),
          writtenNames: start.writtenNames,
          smsSender: InboxSmsSender.layer.pipe(Layer.provide(kept)),
          privateAddressesSource: start.defaulted.has(allowedPrivateAddressesVariable)
            ? "the default of latchkey dev"
            : undefined
        })
        // Side by side: a layer built before another hands it its logger, and the service's own
        // would then write each of its lines twice. Mail that comes before the SMTP server
        // listens waits in the outbox for the next attempt.
        return Layer.merge(servers, auth)
      })
    )
  })
