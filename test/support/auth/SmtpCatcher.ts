import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type ParsedMail, simpleParser } from "mailparser"
import { SMTPServer } from "smtp-server"

/** A message the catcher took, as the server saw its envelope and as mailparser reads it. */
export interface Caught {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly mail: ParsedMail
}

/** How the catcher answers a recipient: accept it, or refuse it with an SMTP code. */
export type Answer =
  | { readonly accept: true }
  | { readonly accept: false; readonly code: number; readonly message: string }

export interface SmtpCatcher {
  readonly port: number
  /** Everything accepted so far, in the order it arrived. */
  readonly caught: ReadonlyArray<Caught>
  /** Stops listening (the port refuses connections) until `up`. */
  readonly down: Effect.Effect<void>
  /** Listens again on the same port. */
  readonly up: Effect.Effect<void>
  /** How to answer each recipient from now on. */
  readonly answer: (rule: (recipient: string) => Answer) => void
  /**
   * From now on, each message is taken but not answered until `release`: its sender's
   * connection stays busy, so `waiting()` counts the messages being sent at one moment.
   */
  readonly hold: () => void
  /** Messages received and not yet answered while holding. */
  readonly waiting: () => number
  /** Answers every held message and stops holding. */
  readonly release: () => void
}

/**
 * A real SMTP server (`smtp-server`) on a loopback port for the tests: plain SMTP without
 * STARTTLS or authentication, every message parsed with mailparser. Closed with its scope.
 */
export const start: Effect.Effect<SmtpCatcher, never, Scope.Scope> = Effect.gen(function* () {
  const caught: Array<Caught> = []
  let rule: (recipient: string) => Answer = () => ({ accept: true })
  let holding = false
  const held: Array<() => void> = []
  const make = () =>
    new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onRcptTo(address, _session, callback) {
        const answer = rule(address.address)
        if (answer.accept) return callback()
        const error = Object.assign(new Error(answer.message), { responseCode: answer.code })
        return callback(error)
      },
      onData(stream, session, callback) {
        simpleParser(stream).then(
          (mail) => {
            caught.push({
              from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              mail
            })
            if (holding) held.push(() => callback())
            else callback()
          },
          (error: Error) => callback(error)
        )
      }
    })
  let server = make()
  const listen = (port: number) =>
    Effect.async<number>((resume) => {
      server.listen(port, "127.0.0.1", () => {
        const address = server.server.address()
        resume(
          typeof address === "object" && address !== null
            ? Effect.succeed(address.port)
            : Effect.dieMessage("the SMTP catcher listens on no TCP port")
        )
      })
    })
  const close = Effect.async<void>((resume) => {
    server.close(() => resume(Effect.void))
  })
  const port = yield* listen(0)
  yield* Effect.addFinalizer(() => close)
  return {
    port,
    caught,
    down: close,
    up: Effect.suspend(() => {
      server = make()
      return Effect.asVoid(listen(port))
    }),
    answer: (next) => {
      rule = next
    },
    hold: () => {
      holding = true
    },
    waiting: () => held.length,
    release: () => {
      holding = false
      for (const answer of held.splice(0)) answer()
    }
  }
})

/** The auth service's variables for confirmation by mail, sent through `catcher`. */
export const mailingEnv = (catcher: SmtpCatcher): Record<string, string> => ({
  AUTHSVC_MAILER_AUTOCONFIRM: "false",
  AUTHSVC_SMTP_HOST: "127.0.0.1",
  AUTHSVC_SMTP_PORT: String(catcher.port),
  AUTHSVC_SMTP_ADMIN_EMAIL: "auth@example.com"
})
