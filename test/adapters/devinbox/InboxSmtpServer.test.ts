import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import nodemailer from "nodemailer"
import * as DevInbox from "../../../adapters/devinbox/DevInbox.js"
import * as InboxHttp from "../../../adapters/devinbox/InboxHttp.js"
import * as InboxSmtpServer from "../../../adapters/devinbox/InboxSmtpServer.js"
import { freePort } from "../../support/FreePort.js"

/** The inbox, its SMTP server on an ephemeral port and its page on a free one. */
const start = (options: { readonly maxBytes?: number } = {}) =>
  Effect.gen(function* () {
    const inbox = yield* DevInbox.make()
    const httpPort = yield* freePort
    const smtpPort = yield* InboxSmtpServer.start({ host: "127.0.0.1", port: 0, ...options }).pipe(
      Effect.provideService(DevInbox.DevInbox, inbox)
    )
    yield* InboxHttp.serve({ host: "127.0.0.1", port: httpPort }).pipe(
      Effect.provideService(DevInbox.DevInbox, inbox),
      Logger.withMinimumLogLevel(LogLevel.None)
    )
    return { inbox, smtpPort, baseUrl: `http://127.0.0.1:${httpPort}` }
  })

/** A transport as the auth service's mailer makes one: plain SMTP, with a login when configured. */
const transport = (port: number) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      nodemailer.createTransport({
        host: "127.0.0.1",
        port,
        secure: false,
        auth: { user: "any", pass: "thing" }
      })
    ),
    (made) => Effect.sync(() => made.close())
  )

describe("the development inbox's SMTP server", () => {
  it.scoped("takes a mail sent with nodemailer (login and all) and shows it in the API", () =>
    Effect.gen(function* () {
      const { smtpPort, baseUrl } = yield* start()
      const mailer = yield* transport(smtpPort)
      yield* Effect.promise(() =>
        mailer.sendMail({
          from: { name: "Example Auth", address: "auth@example.com" },
          to: "ada@example.com",
          bcc: "audit@example.com",
          subject: "Confirm your email address",
          text: "Follow this link: http://127.0.0.1:8081/verify?token=t&type=signup",
          html: '<p><a href="http://127.0.0.1:8081/verify?token=t&amp;type=signup">Confirm</a></p>'
        })
      )
      // Sent means kept: the server answers the message once the inbox has it.
      const messages = yield* Effect.promise(
        (): Promise<unknown> => fetch(`${baseUrl}/api/messages`).then((response) => response.json())
      )
      expect(messages).toEqual([
        {
          id: expect.any(String),
          kind: "mail",
          from: '"Example Auth" <auth@example.com>',
          to: "ada@example.com, audit@example.com",
          subject: "Confirm your email address",
          text: "Follow this link: http://127.0.0.1:8081/verify?token=t&type=signup",
          html: '<p><a href="http://127.0.0.1:8081/verify?token=t&amp;type=signup">Confirm</a></p>',
          links: ["http://127.0.0.1:8081/verify?token=t&type=signup"],
          received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        }
      ])
    })
  )

  it.scoped("refuses a message over its size with 552, and keeps nothing of it", () =>
    Effect.gen(function* () {
      const { inbox, smtpPort } = yield* start({ maxBytes: 1024 })
      const mailer = yield* transport(smtpPort)
      const refused = yield* Effect.flip(
        Effect.tryPromise(() =>
          mailer.sendMail({
            from: "a@example.com",
            to: "b@example.com",
            subject: "big",
            text: "x".repeat(4096)
          })
        )
      )
      expect(String(refused.cause)).toContain("552")
      expect(yield* inbox.list).toEqual([])
    })
  )

  it.scoped("fails to start, naming the address, on a port already taken", () =>
    Effect.gen(function* () {
      const { inbox, smtpPort } = yield* start()
      const error = yield* Effect.flip(
        InboxSmtpServer.start({ host: "127.0.0.1", port: smtpPort }).pipe(
          Effect.provideService(DevInbox.DevInbox, inbox)
        )
      )
      expect(error._tag).toBe("InboxSmtpFailed")
      expect(error.message).toContain(`cannot receive mail on 127.0.0.1:${smtpPort}`)
    })
  )
})
