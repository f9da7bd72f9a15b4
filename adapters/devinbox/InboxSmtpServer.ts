import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { simpleParser } from "mailparser"
import { SMTPServer } from "smtp-server"
import { DevInbox } from "./DevInbox.js"

export class InboxSmtpFailed extends Schema.TaggedError<InboxSmtpFailed>()("InboxSmtpFailed", {
  message: Schema.String
}) {}

export interface Options {
  /** Loopback only: whatever is sent here is shown to anyone who can open the inbox. */
  readonly host: "127.0.0.1"
  /** 0: an ephemeral port. */
  readonly port: number
  /** The largest message taken (SMTP `SIZE`); larger ones are refused with 552. */
  readonly maxBytes?: number
}

/** The auth service's mail is a few KiB; this leaves room for an application's own mail. */
export const defaultMaxBytes = 5 * 1024 * 1024

/**
 * Connections still open when the server closes are cut after this long: the auth service's
 * pooled connections would otherwise hold a shutdown for smtp-server's default of 30 s.
 */
const closeTimeoutMs = 1_000

/** smtp-server's way of answering a command with an SMTP code of our choosing. */
const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code })

/**
 * The development inbox's mail server (smtp-server): plain SMTP on a loopback port, any login
 * accepted (so that a configured `SMTP_USER` does not stop the mail), every recipient accepted,
 * each message parsed with mailparser and kept in the inbox. Nothing is relayed. Closes with the
 * scope; the port it listens on.
 */
export const start = (options: Options): Effect.Effect<number, InboxSmtpFailed, DevInbox | Scope.Scope> =>
  Effect.gen(function* () {
    const inbox = yield* DevInbox
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    const runCallback = Runtime.runCallback(runtime)
    const maxBytes = options.maxBytes ?? defaultMaxBytes
    const server = new SMTPServer({
      name: "localhost",
      banner: "latchkey development inbox: nothing sent here leaves this machine",
      size: maxBytes,
      disabledCommands: ["STARTTLS"],
      authOptional: true,
      allowInsecureAuth: true,
      disableReverseLookup: true,
      closeTimeout: closeTimeoutMs,
      logger: false,
      onAuth(auth, _session, callback) {
        callback(null, { user: auth.username ?? "development" })
      },
      onData(stream, session, callback) {
        simpleParser(stream).then(
          (mail) => {
            // The parser read the stream to its end, so the size is known only now.
            if (stream.sizeExceeded) return callback(smtpError(552, `the message exceeds ${maxBytes} bytes`))
            // Accepted once kept: a client that was answered finds its message in the inbox.
            runCallback(
              inbox.add({
                kind: "mail",
                from: mail.from?.text ?? "",
                to: session.envelope.rcptTo.map((recipient) => recipient.address),
                subject: Option.some(mail.subject ?? ""),
                text: mail.text ?? "",
                html: typeof mail.html === "string" ? Option.some(mail.html) : Option.none()
              }),
              { onExit: () => callback() }
            )
          },
          (error: unknown) =>
            callback(
              smtpError(
                554,
                `the message could not be read: ${error instanceof Error ? error.message : String(error)}`
              )
            )
        )
      }
    })
    yield* Effect.acquireRelease(
      Effect.async<void, InboxSmtpFailed>((resume) => {
        const failed = (error: Error) =>
          resume(
            Effect.fail(
              new InboxSmtpFailed({
                message: `cannot receive mail on ${options.host}:${options.port}: ${error.message}`
              })
            )
          )
        server.once("error", failed)
        server.listen(options.port, options.host, () => {
          server.off("error", failed)
          // A client's connection that fails is the server's "error" too: logged, never fatal.
          server.on("error", (error: Error) =>
            runFork(Effect.logWarning(`development inbox: an SMTP connection failed: ${error.message}`))
          )
          resume(Effect.void)
        })
      }),
      () => Effect.async<void>((resume) => server.close(() => resume(Effect.void)))
    )
    const address = server.server.address()
    return typeof address === "object" && address !== null ? address.port : options.port
  })
