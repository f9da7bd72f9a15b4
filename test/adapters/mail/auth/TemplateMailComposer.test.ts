import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as TemplateMailComposer from "../../../../adapters/mail/auth/TemplateMailComposer.js"
import { MailComposer } from "../../../../application/auth/ports/MailComposer.js"
import { Kind, Message } from "../../../../domain/auth/Mail.js"

const variables = {
  SiteURL: "https://app.example.com",
  Email: "ada@example.com",
  NewEmail: "ada@new.example.com",
  OldEmail: "ada@old.example.com",
  ConfirmationURL: "https://auth.example.com/verify?token=abc&type=signup",
  Token: "123456",
  Phone: "+15550100",
  OldPhone: "+15550199",
  Provider: "github",
  FactorType: "totp"
}

const compose = (message: Message, subjects: TemplateMailComposer.ComposerSettings["subjects"] = {}) =>
  Effect.flatMap(MailComposer, (composer) => composer.compose(message)).pipe(
    Effect.provide(TemplateMailComposer.layer({ subjects, templates: { urls: {} } }))
  )

describe("TemplateMailComposer", () => {
  it.effect("renders every kind with its default subject, an HTML and a text part", () =>
    Effect.gen(function* () {
      for (const kind of Kind.literals) {
        const mail = yield* compose(new Message({ kind, to: "ada@example.com", variables }))
        expect(mail.to).toBe("ada@example.com")
        expect(mail.subject).not.toBe("")
        expect(mail.html).toMatch(/^<!doctype html>/)
        expect(mail.text).not.toContain("{{")
        expect(mail.html).not.toContain("{{")
        if (["invite", "confirmation", "recovery", "magic_link", "email_change"].includes(kind)) {
          expect(mail.text).toContain(variables.ConfirmationURL)
          expect(mail.html).toContain("https://auth.example.com/verify?token=abc&amp;type=signup")
          expect(mail.text).toContain("123456")
        }
      }
      const reauthentication = yield* compose(
        new Message({ kind: "reauthentication", to: "a@b.c", variables })
      )
      expect(reauthentication.subject).toBe("123456 is your verification code")
    })
  )

  it.effect("words an email change by whether the user had an address", () =>
    Effect.gen(function* () {
      const change = (Email: string) =>
        compose(
          new Message({ kind: "email_change", to: variables.NewEmail, variables: { ...variables, Email } })
        )
      const moving = yield* change("ada@example.com")
      expect(moving.text).toContain(
        "Confirm the change of your address from ada@example.com to ada@new.example.com at https://app.example.com."
      )
      // An anonymous or a phone user has no address to change from: Supabase Auth's `.Email` is empty.
      const adding = yield* change("")
      expect(adding.text).toContain(
        "Confirm ada@new.example.com as the email address of your account at https://app.example.com."
      )
      expect(adding.text).not.toContain(" from ")
      expect(adding.html).toContain("Confirm ada@new.example.com as the email address of your account")
    })
  )

  it.effect("takes a configured subject, kept to one line; values are escaped in HTML only", () =>
    Effect.gen(function* () {
      const mail = yield* compose(
        new Message({
          kind: "confirmation",
          to: "ada@example.com",
          variables: {
            ...variables,
            Email: "<b>ada</b>@example.com",
            Data: { name: "Ada\r\nBcc: x@evil.test" }
          }
        }),
        { confirmation: "Welcome {{ .Data.name }}" }
      )
      expect(mail.subject).toBe("Welcome Ada Bcc: x@evil.test")
      expect(mail.html).toContain("&lt;b&gt;ada&lt;/b&gt;@example.com")
      expect(mail.text).toContain("<b>ada</b>@example.com")
    })
  )

  it("checks a configured subject at start", () => {
    expect(TemplateMailComposer.parseSubject("{{ .Token }} is your code")).toEqual(
      Either.right("{{ .Token }} is your code")
    )
    expect(Either.isLeft(TemplateMailComposer.parseSubject("{{ .Token | upper }}"))).toBe(true)
  })
})
