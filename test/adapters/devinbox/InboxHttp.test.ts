import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as DevInbox from "../../../adapters/devinbox/DevInbox.js"
import * as InboxHttp from "../../../adapters/devinbox/InboxHttp.js"
import { freePort } from "../../support/FreePort.js"

/** An inbox and its page on a free loopback port, until the scope closes. */
const start = Effect.gen(function* () {
  const inbox = yield* DevInbox.make()
  const port = yield* freePort
  yield* InboxHttp.serve({ host: "127.0.0.1", port }).pipe(
    Effect.provideService(DevInbox.DevInbox, inbox),
    Logger.withMinimumLogLevel(LogLevel.None)
  )
  return { inbox, baseUrl: `http://127.0.0.1:${port}` }
})

const get = (url: string, init?: RequestInit) => Effect.promise(() => fetch(url, init))
const body = (response: Response) => Effect.promise(() => response.text())
const jsonOf = (response: Response) => Effect.promise((): Promise<unknown> => response.json())

const confirmation: DevInbox.Incoming = {
  kind: "mail",
  from: "noreply@localhost",
  to: ["ada@example.com"],
  subject: Option.some("Confirm your email address"),
  text: "Follow this link: http://127.0.0.1:8081/verify?token=t&type=signup",
  html: Option.some('<p><a href="http://127.0.0.1:8081/verify?token=t&amp;type=signup">Confirm</a></p>')
}

const text: DevInbox.Incoming = {
  kind: "sms",
  from: "",
  to: ["+15555550100"],
  subject: Option.none(),
  text: "Your code is 123456",
  html: Option.none()
}

describe("the development inbox's JSON API", () => {
  it.scoped("lists the messages newest first, in the documented shape", () =>
    Effect.gen(function* () {
      const { inbox, baseUrl } = yield* start
      const mail = yield* inbox.add(confirmation)
      const sms = yield* inbox.add(text)
      const response = yield* get(`${baseUrl}/api/messages`)
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toBe("application/json")
      expect(response.headers.get("cache-control")).toBe("no-store")
      expect(response.headers.get("access-control-allow-origin")).toBeNull()
      expect(yield* jsonOf(response)).toEqual([
        {
          id: sms.id,
          kind: "sms",
          from: "",
          to: "+15555550100",
          subject: null,
          text: "Your code is 123456",
          html: null,
          links: [],
          received_at: sms.receivedAt.toISOString()
        },
        {
          id: mail.id,
          kind: "mail",
          from: "noreply@localhost",
          to: "ada@example.com",
          subject: "Confirm your email address",
          text: confirmation.text,
          html: Option.getOrNull(confirmation.html),
          links: ["http://127.0.0.1:8081/verify?token=t&type=signup"],
          received_at: mail.receivedAt.toISOString()
        }
      ])
    })
  )

  it.scoped("answers one message by its id, one recipient's with ?to=, and forgets them on DELETE", () =>
    Effect.gen(function* () {
      const { inbox, baseUrl } = yield* start
      const mail = yield* inbox.add(confirmation)
      yield* inbox.add(text)
      const one = yield* get(`${baseUrl}/api/messages/${mail.id}`)
      expect(one.status).toBe(200)
      expect(yield* jsonOf(one)).toMatchObject({
        id: mail.id,
        kind: "mail",
        subject: "Confirm your email address"
      })
      const missing = yield* get(`${baseUrl}/api/messages/no-such-id`)
      expect(missing.status).toBe(404)
      expect(yield* jsonOf(missing)).toEqual({ error: "not_found", message: "no message with this id" })

      const toAda = yield* jsonOf(
        yield* get(`${baseUrl}/api/messages?to=${encodeURIComponent("Ada@Example.com")}`)
      )
      expect(toAda).toMatchObject([{ id: mail.id }])
      expect(yield* jsonOf(yield* get(`${baseUrl}/api/messages?to=nobody%40example.com`))).toEqual([])
      // A number as supabase-js gives a user's phone, with its + encoded, or with it unencoded.
      for (const number of ["15555550100", "%2B15555550100", "+15555550100"]) {
        expect(yield* jsonOf(yield* get(`${baseUrl}/api/messages?to=${number}`))).toMatchObject([
          { kind: "sms" }
        ])
      }
      expect(yield* jsonOf(yield* get(`${baseUrl}/api/messages?to=15555550101`))).toEqual([])

      const deleted = yield* get(`${baseUrl}/api/messages`, { method: "DELETE" })
      expect(deleted.status).toBe(204)
      expect(yield* jsonOf(yield* get(`${baseUrl}/api/messages`))).toEqual([])
      expect(yield* inbox.list).toEqual([])
    })
  )

  it.scoped("refuses what it does not serve", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* start
      expect((yield* get(`${baseUrl}/nothing-here`)).status).toBe(404)
      const post = yield* get(`${baseUrl}/api/messages`, { method: "POST" })
      expect(post.status).toBe(405)
      expect(post.headers.get("allow")).toBe("GET, DELETE, OPTIONS")
    })
  )
})

describe("the development inbox's page", () => {
  it.scoped("shows each message, newest first, with its links and its HTML in a sandboxed frame", () =>
    Effect.gen(function* () {
      const { inbox, baseUrl } = yield* start
      yield* inbox.add(confirmation)
      yield* inbox.add(text)
      const response = yield* get(`${baseUrl}/`)
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
      const csp = response.headers.get("content-security-policy") ?? ""
      expect(csp).toContain("default-src 'none'")
      expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'/)
      const page = yield* body(response)
      expect(page).toContain("2 messages")
      expect(page.indexOf("Your code is 123456")).toBeLessThan(page.indexOf("Confirm your email address"))
      expect(page).toContain(
        '<a href="http://127.0.0.1:8081/verify?token=t&amp;type=signup" target="_blank" rel="noopener noreferrer">'
      )
      expect(page).toContain(
        '<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" title="Confirm your email address" srcdoc="&lt;base target=&quot;_blank&quot;&gt;&lt;p&gt;&lt;a href=&quot;http://127.0.0.1:8081/verify?token=t&amp;amp;type=signup&quot;&gt;Confirm&lt;/a&gt;&lt;/p&gt;"></iframe>'
      )
    })
  )

  it.scoped("escapes a hostile subject, sender, recipient and body", () =>
    Effect.gen(function* () {
      const { inbox, baseUrl } = yield* start
      const hostile = '"><script>alert(1)</script><img src=x onerror=alert(2)>'
      yield* inbox.add({
        kind: "mail",
        from: hostile,
        to: [`${hostile}@example.com`],
        subject: Option.some(hostile),
        text: hostile,
        html: Option.some(`<p>hi</p>"></iframe><script>alert(3)</script>`)
      })
      yield* inbox.add({ ...text, text: `</pre>${hostile}` })
      const page = yield* body(yield* get(`${baseUrl}/`))
      // The page's only script is its own; the only elements are the page's.
      expect(page.match(/<script>/g)).toHaveLength(1)
      expect(page).not.toContain("<img")
      expect(page).not.toContain("alert(3)</script>")
      expect(page.match(/<\/iframe>/g)).toHaveLength(1)
      expect(page.match(/<\/pre>/g)).toHaveLength(1)
      expect(page).toContain(
        '<h2><span class="kind">mail</span>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;</h2>'
      )
      expect(page).toContain(
        'srcdoc="&lt;base target=&quot;_blank&quot;&gt;&lt;p&gt;hi&lt;/p&gt;&quot;&gt;&lt;/iframe&gt;&lt;script&gt;alert(3)&lt;/script&gt;"'
      )
    })
  )

  it.scoped("puts the frame's <base> after a mail's doctype, which must stay first", () =>
    Effect.gen(function* () {
      const { inbox, baseUrl } = yield* start
      yield* inbox.add({ ...confirmation, html: Option.some("<!DOCTYPE html><html><body>hi</body></html>") })
      const page = yield* body(yield* get(`${baseUrl}/`))
      expect(page).toContain(
        'srcdoc="&lt;!DOCTYPE html&gt;&lt;base target=&quot;_blank&quot;&gt;&lt;html&gt;&lt;body&gt;hi&lt;/body&gt;&lt;/html&gt;"'
      )
    })
  )

  it.scoped("says so when there is nothing yet", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* start
      const page = yield* body(yield* get(`${baseUrl}/`))
      expect(page).toContain("0 messages")
      expect(page).toContain("Nothing yet")
    })
  )
})
