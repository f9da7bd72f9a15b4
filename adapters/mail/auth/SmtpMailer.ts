import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import nodemailer from "nodemailer"
import { concurrentAttempts } from "../../../application/auth/DeliverMail.js"
import { Mailer, MailRefused } from "../../../application/auth/ports/Mailer.js"

export interface SmtpSettings {
  readonly host: string
  readonly port: number
  readonly user: Option.Option<string>
  readonly pass: Option.Option<Redacted.Redacted>
  /**
   * `SMTP_ADMIN_EMAIL`: the From address, or a whole From (`Admin <admin@example.com>`) when no
   * sender name is set, as Supabase Auth writes it. None: mail leaves without a From, which most
   * servers refuse (ConfigWarnings says so at start).
   */
  readonly adminEmail: Option.Option<string>
  /** `SMTP_SENDER_NAME`: the From name; the address when unset. */
  readonly senderName: Option.Option<string>
  /**
   * `SMTP_MAX_CONNECTIONS`: connections kept open to the server, as many as the mail worker
   * sends at once (DeliverMail); `DeliverMail.concurrentAttempts` when unset.
   */
  readonly maxConnections?: number | undefined
}

/**
 * What a failure of nodemailer says about trying again. An SMTP answer in 5xx refuses this
 * message for good; 4xx, network failures and time-outs may pass later. A refused login (535)
 * is a configuration error that every message meets alike: retried, so that mail queued while an
 * operator fixes the credentials still goes out.
 */
const refusal = (error: unknown): MailRefused => {
  const code =
    typeof error === "object" && error !== null && "responseCode" in error ? error.responseCode : undefined
  const kind = typeof error === "object" && error !== null && "code" in error ? error.code : undefined
  const message = error instanceof Error ? error.message : String(error)
  const permanent = typeof code === "number" && code >= 500 && code < 600 && kind !== "EAUTH"
  return new MailRefused({ permanent, message })
}

/**
 * The mail server over SMTP with nodemailer: pooled connections, implicit TLS on port 465,
 * STARTTLS whenever the server offers it elsewhere, login when `SMTP_USER` is set. Each message
 * goes out multipart (text and HTML) with its outbox id in its Message-ID.
 */
export const layer = (settings: SmtpSettings) =>
  Layer.scoped(
    Mailer,
    Effect.gen(function* () {
      const transport = yield* Effect.acquireRelease(
        Effect.sync(() =>
          nodemailer.createTransport({
            host: settings.host,
            port: settings.port,
            secure: settings.port === 465,
            pool: true,
            maxConnections: settings.maxConnections ?? concurrentAttempts,
            connectionTimeout: 10_000,
            greetingTimeout: 10_000,
            socketTimeout: 30_000,
            auth: Option.match(settings.user, {
              onNone: () => undefined,
              onSome: (user) => ({
                user,
                pass: Option.match(settings.pass, { onNone: () => "", onSome: Redacted.value })
              })
            })
          })
        ),
        (pool) => Effect.sync(() => pool.close())
      )
      const from = Option.map(settings.adminEmail, (address) =>
        Option.match(settings.senderName, {
          onNone: () => address,
          onSome: (name) => ({ name, address })
        })
      )
      // The message id's domain: the From address's, whatever surrounds it.
      const domain =
        /@([^\s>@]+)>?\s*$/.exec(Option.getOrElse(settings.adminEmail, () => ""))?.[1] ?? "localhost"
      return {
        deliver: (mail, id) =>
          Effect.tryPromise({
            try: () =>
              transport.sendMail({
                ...Option.match(from, { onNone: () => ({}), onSome: (value) => ({ from: value }) }),
                to: mail.to,
                subject: mail.subject,
                text: mail.text,
                html: mail.html,
                messageId: `<${id}@${domain}>`
              }),
            catch: refusal
          }).pipe(Effect.asVoid)
      }
    })
  )
