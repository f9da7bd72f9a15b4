import { randomUUID } from "node:crypto"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { describe, expect, inject, it } from "vitest"
import { MailOutbox } from "../../../application/auth/ports/MailOutbox.js"
import * as AuthLayers from "../../../bootstrap/auth/AuthLayers.js"
import { Message } from "../../../domain/auth/Mail.js"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as SmtpCatcher from "../../support/auth/SmtpCatcher.js"
import * as TestDatabase from "../../support/TestDatabase.js"

// Two instances need a PostgreSQL server they both reach; CI always has one.
const hasServer = inject("postgresUrl") !== null

describe.runIf(hasServer)("the mail workers of two instances on one database", () => {
  it(
    "deliver everything queued, each message once, through the configured SMTP server",
    () =>
      Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const catcher = yield* SmtpCatcher.start
            const url = yield* TestDatabase.freshUrl()
            const env = {
              AUTHSVC_SMTP_HOST: "127.0.0.1",
              AUTHSVC_SMTP_PORT: String(catcher.port),
              AUTHSVC_SMTP_ADMIN_EMAIL: "auth@example.com",
              AUTHSVC_SMTP_SENDER_NAME: "Example",
              AUTHSVC_MAILER_SUBJECTS_CONFIRMATION: "Welcome to {{ .SiteURL }}"
            }
            const [first] = yield* Effect.all(
              [
                AuthServerHarness.start({ env, databaseUrl: url }),
                AuthServerHarness.start({ env, databaseUrl: url })
              ],
              { concurrency: "unbounded" }
            )
            const recipients = Array.from({ length: 60 }, () => `${randomUUID()}@example.com`)
            yield* Effect.gen(function* () {
              const outbox = yield* MailOutbox
              for (const to of recipients) {
                yield* outbox.enqueue(
                  new Message({
                    kind: "confirmation",
                    to,
                    variables: { SiteURL: "https://app.example.com" }
                  }),
                  new Date()
                )
              }
            }).pipe(Effect.provide(AuthLayers.core(first.config)))
            // Delivered in the background: wait until all have arrived (or 30 s have passed).
            yield* Effect.suspend(() =>
              catcher.caught.length >= recipients.length ? Effect.void : Effect.fail("not yet")
            ).pipe(
              Effect.retry(Schedule.spaced(Duration.millis(100)).pipe(Schedule.upTo(Duration.seconds(30)))),
              Effect.ignore
            )
            const received = catcher.caught.map((caught) => caught.to[0])
            expect([...received].sort()).toEqual([...recipients].sort())
            expect(
              catcher.caught.every((caught) => caught.mail.subject === "Welcome to https://app.example.com")
            ).toBe(true)
          })
        )
      ),
    120_000
  )
})
