import { createServer, type Server } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as TemplateMailComposer from "../../../../adapters/mail/auth/TemplateMailComposer.js"
import type * as PrivateAddresses from "../../../../adapters/outbound/PrivateAddresses.js"
import { MailComposer } from "../../../../application/auth/ports/MailComposer.js"
import { Message } from "../../../../domain/auth/Mail.js"
import * as Allowed from "../../../support/outbound/Allowed.js"

/**
 * A local template server on `host` (a loopback address): each path's body (or status), and how
 * often each was asked for.
 */
const templateServer = (
  routes: Record<string, { status?: number; body?: string; hang?: boolean; location?: string }>,
  host = "127.0.0.1"
) =>
  Effect.acquireRelease(
    Effect.async<{
      url: (path: string) => string
      hits: Map<string, number>
      server: Server
    }>((resume) => {
      const hits = new Map<string, number>()
      const server = createServer((request, response) => {
        const path = request.url ?? "/"
        hits.set(path, (hits.get(path) ?? 0) + 1)
        const route = routes[path]
        if (route?.hang === true) return
        response.writeHead(route?.status ?? (route === undefined ? 404 : 200), {
          "content-type": "text/html",
          ...(route?.location === undefined ? {} : { location: route.location })
        })
        response.end(route?.body ?? "")
      })
      server.listen(0, host, () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(
          Effect.succeed({
            url: (path: string) => `http://${host}:${port}${path}`,
            hits,
            server
          })
        )
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        // Stop accepting first, then drop what is open (a request left hanging on purpose).
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  )

const message = new Message({
  kind: "confirmation",
  to: "ada@example.com",
  variables: {
    ConfirmationURL: "https://auth.example.com/verify?token=abc&type=signup",
    Token: "123456",
    Data: { name: "<Ada>" }
  }
})

const custom =
  '<h1>Hi {{ .Data.name }}</h1><p><a href="{{ .ConfirmationURL }}">Confirm</a> or type {{ .Token }}</p>'

describe("MAILER_TEMPLATES_<KIND>: templates fetched from a URL", () => {
  it.scoped(
    "renders the fetched template, with a text part made from it, and fetches again only when stale",
    () =>
      Effect.gen(function* () {
        const served = yield* templateServer({ "/confirm.html": { body: custom } })
        const composer = yield* Effect.provide(
          MailComposer,
          TemplateMailComposer.layer({
            subjects: {},
            templates: {
              urls: { confirmation: served.url("/confirm.html") },
              allowedPrivateAddresses: Allowed.localhost
            }
          })
        )
        const mail = yield* composer.compose(message)
        expect(mail.html).toBe(
          '<h1>Hi &lt;Ada&gt;</h1><p><a href="https://auth.example.com/verify?token=abc&amp;type=signup">Confirm</a> or type 123456</p>'
        )
        expect(mail.text).toContain("HI <ADA>")
        expect(mail.text).toContain("[https://auth.example.com/verify?token=abc&type=signup]")
        expect(mail.subject).toBe("Confirm your email address")
        // Other kinds keep the built-in bodies.
        expect((yield* composer.compose(new Message({ ...message, kind: "recovery" }))).html).toMatch(
          /^<!doctype html>/
        )

        yield* composer.compose(message)
        expect(served.hits.get("/confirm.html")).toBe(1)
        yield* TestClock.adjust(Duration.minutes(10))
        yield* composer.compose(message)
        expect(served.hits.get("/confirm.html")).toBe(2)
      })
  )

  it.scoped("falls back to the built-in body when the template is missing, broken, too big or too slow", () =>
    Effect.gen(function* () {
      const served = yield* templateServer({
        "/error.html": { status: 500, body: custom },
        "/unparseable.html": { body: "{{ range .Items }}x{{ end }}" },
        "/huge.html": { body: "x".repeat(600 * 1024) },
        "/slow.html": { hang: true }
      })
      for (const path of ["/missing.html", "/error.html", "/unparseable.html", "/huge.html", "/slow.html"]) {
        const composer = yield* Effect.provide(
          MailComposer,
          TemplateMailComposer.layer({
            subjects: {},
            templates: {
              urls: { confirmation: served.url(path) },
              timeout: Duration.millis(300),
              allowedPrivateAddresses: Allowed.localhost
            }
          })
        )
        const mail = yield* composer.compose(message)
        expect(mail.html).toMatch(/^<!doctype html>/)
        expect(mail.text).toContain("Or enter this code: 123456")
      }
    })
  )

  it.scoped("keeps the last good template while the server fails", () =>
    Effect.gen(function* () {
      const routes: Record<string, { status?: number; body?: string }> = { "/confirm.html": { body: custom } }
      const served = yield* templateServer(routes)
      const composer = yield* Effect.provide(
        MailComposer,
        TemplateMailComposer.layer({
          subjects: {},
          templates: {
            urls: { confirmation: served.url("/confirm.html") },
            allowedPrivateAddresses: Allowed.localhost
          }
        })
      )
      expect((yield* composer.compose(message)).html).toContain("Hi &lt;Ada&gt;")
      routes["/confirm.html"] = { status: 503 }
      yield* TestClock.adjust(Duration.minutes(10))
      expect((yield* composer.compose(message)).html).toContain("Hi &lt;Ada&gt;")
      expect(served.hits.get("/confirm.html")).toBe(2)
    })
  )

  it.scoped("fetches through the outbound guard: a redirect is followed only where the guard allows", () =>
    Effect.gen(function* () {
      // On another loopback address than the one the list names.
      const internal = yield* templateServer({ "/internal.html": { body: custom } }, "127.0.0.2")
      const served = yield* templateServer({
        "/moved.html": { status: 302, location: "/confirm.html" },
        "/confirm.html": { body: custom },
        "/to-internal.html": { status: 302, location: internal.url("/internal.html") }
      })
      const composerFor = (url: string, allowedPrivateAddresses: PrivateAddresses.AllowList) =>
        Effect.provide(
          MailComposer,
          TemplateMailComposer.layer({
            subjects: {},
            templates: { urls: { confirmation: url }, allowedPrivateAddresses }
          })
        )
      const followed = yield* composerFor(served.url("/moved.html"), Allowed.localhost)
      expect((yield* followed.compose(message)).html).toContain("Hi &lt;Ada&gt;")
      // A loopback server the list does not name, directly or through a redirect: refused, and
      // the built-in body used.
      for (const [url, allowed] of [
        [internal.url("/internal.html"), Allowed.localhost],
        [served.url("/to-internal.html"), Allowed.localhost]
      ] as const) {
        const composer = yield* composerFor(url, allowed)
        expect((yield* composer.compose(message)).html).toMatch(/^<!doctype html>/)
      }
      expect(internal.hits.get("/internal.html")).toBeUndefined()
    })
  )
})
