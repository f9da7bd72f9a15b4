import { randomUUID } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as SmtpMailer from "../../../../adapters/mail/auth/SmtpMailer.js"
import * as TemplateMailComposer from "../../../../adapters/mail/auth/TemplateMailComposer.js"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import { deliverDue } from "../../../../application/auth/DeliverMail.js"
import { MailOutbox } from "../../../../application/auth/ports/MailOutbox.js"
import { Message } from "../../../../domain/auth/Mail.js"
import * as MailDelivery from "../../../../domain/auth/MailDelivery.js"
import * as SmtpCatcher from "../../../support/auth/SmtpCatcher.js"
import * as TestDatabase from "../../../support/TestDatabase.js"

const linkOf = (to: string) => `https://auth.example.com/verify?token=t-${to}&type=signup`

const message = (to: string) =>
  new Message({
    kind: "confirmation",
    to,
    variables: { ConfirmationURL: linkOf(to), Email: to, SiteURL: "https://app.example.com", Token: "123456" }
  })

const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

const address = () => `${randomUUID()}@example.com`

/** A mailer on the catcher's port and the built-in templates, built for the rest of the test. */
const mailerFor = (catcher: SmtpCatcher.SmtpCatcher, maxConnections?: number) =>
  Layer.build(
    Layer.merge(
      SmtpMailer.layer({
        host: "127.0.0.1",
        port: catcher.port,
        user: Option.none(),
        pass: Option.none(),
        adminEmail: Option.some("auth@example.com"),
        senderName: Option.some("Example Auth"),
        maxConnections
      }),
      TemplateMailComposer.layer({ subjects: {}, templates: { urls: {} } })
    )
  )

const Row = Schema.Struct({
  variables: Schema.NullOr(Schema.String),
  attempts: Schema.Number,
  deliveredAt: Schema.NullOr(Schema.DateFromSelf),
  givenUpAt: Schema.NullOr(Schema.DateFromSelf),
  lastError: Schema.NullOr(Schema.String)
})

const rowOf = (recipient: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT variables, attempts, delivered_at, given_up_at, last_error FROM auth.mail_outbox
        WHERE recipient = ${recipient}`.pipe(
      Effect.orDie,
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(Row)))
    )
  )

layer(AuthStoragePg.layer("").pipe(Layer.provideMerge(TestDatabase.authLayer("server"))), {
  timeout: "60 seconds"
})(
  `mail delivery from the outbox to a real SMTP server, on ${TestDatabase.describeTarget("server")}`,
  (it) => {
    it.scoped(
      "queued mail goes out once, multipart, from the configured sender; its body leaves the outbox",
      () =>
        Effect.gen(function* () {
          const catcher = yield* SmtpCatcher.start
          const mailer = yield* mailerFor(catcher)
          const pass = deliverDue().pipe(Effect.provide(mailer))
          const outbox = yield* MailOutbox
          const recipients = [address(), address(), address()]
          const ids = yield* Effect.flatMap(now, (at) =>
            Effect.forEach(recipients, (to) => outbox.enqueue(message(to), at))
          )
          expect(yield* pass).toBe(3)
          expect(yield* pass).toBe(0)
          expect(catcher.caught.map((caught) => caught.to).sort()).toEqual(
            recipients.map((to) => [to]).sort()
          )
          for (const [i, to] of recipients.entries()) {
            const caught = catcher.caught.find((entry) => entry.to[0] === to)
            expect(caught?.from).toBe("auth@example.com")
            expect(caught?.mail.from?.value).toEqual([{ name: "Example Auth", address: "auth@example.com" }])
            expect(caught?.mail.subject).toBe("Confirm your email address")
            // Both parts, rendered from the built-in template: the link as it is in text, escaped in HTML.
            expect(caught?.mail.text).toContain(`Confirm your address: ${linkOf(to)}`)
            expect(caught?.mail.text).toContain("Or enter this code: 123456")
            expect(caught?.mail.html).toContain(`href="${linkOf(to).replace("&", "&amp;")}"`)
            expect(caught?.mail.messageId).toBe(`<${ids[i]}@example.com>`)
            const [row] = yield* rowOf(to)
            expect(row).toMatchObject({ variables: null, attempts: 0, givenUpAt: null })
            expect(row?.deliveredAt).not.toBeNull()
          }
        })
    )

    it.scoped(
      "while the SMTP server is down mail waits, with growing pauses, and goes out once it is back",
      () =>
        Effect.gen(function* () {
          const catcher = yield* SmtpCatcher.start
          const mailer = yield* mailerFor(catcher)
          const pass = deliverDue().pipe(Effect.provide(mailer))
          const outbox = yield* MailOutbox
          yield* catcher.down
          const recipients = [address(), address()]
          yield* Effect.flatMap(now, (at) =>
            Effect.forEach(recipients, (to) => outbox.enqueue(message(to), at))
          )
          expect(yield* pass).toBe(2)
          // Not due again before the first pause has passed.
          expect(yield* pass).toBe(0)
          yield* TestClock.adjust(MailDelivery.pauseAfter(1))
          expect(yield* pass).toBe(2)
          const [row] = yield* rowOf(recipients[0] ?? "")
          expect(row?.attempts).toBe(2)
          expect(row?.lastError).toContain("ECONNREFUSED")
          expect(row?.variables).not.toBeNull()
          yield* catcher.up
          yield* TestClock.adjust(MailDelivery.pauseAfter(2))
          expect(yield* pass).toBe(2)
          // Every later pass finds nothing: none is sent twice.
          yield* TestClock.adjust(Duration.hours(3))
          expect(yield* pass).toBe(0)
          expect(catcher.caught.map((caught) => caught.to[0]).sort()).toEqual([...recipients].sort())
        })
    )

    it.scoped("a refused mailbox is given up at once; a greylisted one is sent on the next try", () =>
      Effect.gen(function* () {
        const catcher = yield* SmtpCatcher.start
        const mailer = yield* mailerFor(catcher)
        const pass = deliverDue().pipe(Effect.provide(mailer))
        const outbox = yield* MailOutbox
        const gone = `gone-${address()}`
        const grey = `grey-${address()}`
        let greylisted = false
        catcher.answer((recipient) => {
          if (recipient === gone) return { accept: false, code: 550, message: "No such mailbox" }
          if (recipient === grey && !greylisted) {
            greylisted = true
            return { accept: false, code: 451, message: "Greylisted, try again later" }
          }
          return { accept: true }
        })
        yield* outbox.enqueue(message(gone), yield* now)
        yield* outbox.enqueue(message(grey), yield* now)
        expect(yield* pass).toBe(2)
        const [refused] = yield* rowOf(gone)
        expect(refused).toMatchObject({ attempts: 1, variables: null, deliveredAt: null })
        expect(refused?.givenUpAt).not.toBeNull()
        expect(refused?.lastError).toContain("No such mailbox")
        yield* TestClock.adjust(MailDelivery.pauseAfter(1))
        expect(yield* pass).toBe(1)
        expect(catcher.caught.map((caught) => caught.to[0])).toEqual([grey])
      })
    )

    it.scoped("mail failing for two hours is given up, after the pauses the schedule sets", () =>
      Effect.gen(function* () {
        const catcher = yield* SmtpCatcher.start
        const mailer = yield* mailerFor(catcher)
        const pass = deliverDue().pipe(Effect.provide(mailer))
        const outbox = yield* MailOutbox
        yield* catcher.down
        const to = address()
        yield* outbox.enqueue(message(to), yield* now)
        let attempts = 0
        while (attempts < 100) {
          expect(yield* pass).toBe(1)
          attempts++
          const [row] = yield* rowOf(to)
          if (row?.givenUpAt !== null) break
          yield* TestClock.adjust(MailDelivery.pauseAfter(attempts))
        }
        // Attempts at 0, 5, 15, 35, 75, 155, 315 s, then every 5 minutes while the next one
        // still falls within two hours of queueing.
        let expected = 1
        let at = 0
        while (
          at + Duration.toMillis(MailDelivery.pauseAfter(expected)) <=
          Duration.toMillis(MailDelivery.retryFor)
        ) {
          at += Duration.toMillis(MailDelivery.pauseAfter(expected))
          expected++
        }
        expect(attempts).toBe(expected)
        const [row] = yield* rowOf(to)
        expect(row).toMatchObject({ attempts, variables: null, deliveredAt: null })
        yield* catcher.up
        yield* TestClock.adjust(Duration.hours(1))
        expect(yield* pass).toBe(0)
        expect(catcher.caught).toEqual([])
      })
    )

    it.scoped("sends as many messages at once as SMTP_MAX_CONNECTIONS allows", () =>
      Effect.gen(function* () {
        const catcher = yield* SmtpCatcher.start
        const mailer = yield* mailerFor(catcher, 10)
        const outbox = yield* MailOutbox
        const recipients = Array.from({ length: 12 }, address)
        yield* Effect.flatMap(now, (at) =>
          Effect.forEach(recipients, (to) => outbox.enqueue(message(to), at))
        )
        // The server takes each message and keeps its connection waiting for the answer.
        catcher.hold()
        const pass = yield* Effect.fork(deliverDue(10).pipe(Effect.provide(mailer)))
        // Ten in flight at once: a pool of five never gets there. Waited for on the wall
        // clock (the test clock stands still), with a bound far above what it takes.
        let waited = 0
        while (catcher.waiting() < 10 && waited < 3000) {
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
          waited++
        }
        expect(catcher.waiting()).toBe(10)
        catcher.release()
        yield* Fiber.join(pass)
        const caught = new Set(catcher.caught.flatMap((entry) => entry.to))
        expect(recipients.filter((to) => !caught.has(to))).toEqual([])
      })
    )
  }
)
