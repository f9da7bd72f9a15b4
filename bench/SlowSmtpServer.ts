/**
 * A mail server for the bench, as slow as a remote one: a real SMTP server (`smtp-server`) on
 * a loopback port that takes each message `delay` after its data has arrived, so every delivery
 * holds one of the service's SMTP connections that long. It counts what it took by recipient
 * (every message of the service has one) and keeps nothing else. Closed with its scope.
 */
import * as Effect from "effect/Effect"
import { SMTPServer } from "smtp-server"

export interface Received {
  readonly messages: number
  /** Distinct recipients: fewer than `messages` when an address got two mails. */
  readonly recipients: number
}

export interface SlowSmtpServer {
  readonly port: number
  /** What it took for the addresses that start with `prefix`. */
  readonly received: (prefix: string) => Received
}

export const start = (delayMillis: number) =>
  Effect.acquireRelease(
    Effect.async<{ readonly smtp: SlowSmtpServer; readonly server: SMTPServer }>((resume) => {
      // Messages taken, by recipient.
      const taken = new Map<string, number>()
      const server = new SMTPServer({
        authOptional: true,
        disabledCommands: ["STARTTLS", "AUTH"],
        logger: false,
        onData(stream, session, callback) {
          // The message must be read to its end before the answer; its content is not needed.
          stream.resume()
          stream.on("end", () => {
            setTimeout(() => {
              for (const rcpt of session.envelope.rcptTo) {
                taken.set(rcpt.address, (taken.get(rcpt.address) ?? 0) + 1)
              }
              callback()
            }, delayMillis)
          })
        }
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(
          Effect.succeed({
            smtp: {
              port,
              received: (prefix) => {
                let messages = 0
                let recipients = 0
                for (const [address, count] of taken) {
                  if (!address.startsWith(prefix)) continue
                  messages += count
                  recipients++
                }
                return { messages, recipients }
              }
            },
            server
          })
        )
      })
    }),
    ({ server }) => Effect.async<void>((resume) => server.close(() => resume(Effect.void)))
  ).pipe(Effect.map(({ smtp }) => smtp))
