import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as DevInbox from "../../../adapters/devinbox/DevInbox.js"

const mail = (subject: string, overrides: Partial<DevInbox.Incoming> = {}): DevInbox.Incoming => ({
  kind: "mail",
  from: "noreply@localhost",
  to: ["ada@example.com"],
  subject: Option.some(subject),
  text: "",
  html: Option.none(),
  ...overrides
})

describe("DevInbox", () => {
  it.effect("keeps messages newest first, with an id and the time they came", () =>
    Effect.gen(function* () {
      const inbox = yield* DevInbox.make()
      yield* TestClock.setTime(Date.parse("2026-01-02T03:04:05.000Z"))
      const first = yield* inbox.add(mail("first"))
      yield* TestClock.adjust("1 second")
      const second = yield* inbox.add(mail("second"))
      expect(first.receivedAt.toISOString()).toBe("2026-01-02T03:04:05.000Z")
      expect(second.receivedAt.toISOString()).toBe("2026-01-02T03:04:06.000Z")
      expect(first.id).not.toBe(second.id)
      expect((yield* inbox.list).map((message) => message.subject)).toEqual([
        Option.some("second"),
        Option.some("first")
      ])
      expect(yield* inbox.find(first.id)).toEqual(Option.some(first))
      expect(yield* inbox.find("no-such-id")).toEqual(Option.none())
    })
  )

  it.effect("forgets the oldest beyond its capacity, and everything when cleared", () =>
    Effect.gen(function* () {
      const inbox = yield* DevInbox.make({ capacity: 3 })
      for (const n of [1, 2, 3, 4, 5]) yield* inbox.add(mail(`mail ${n}`))
      expect((yield* inbox.list).map((message) => Option.getOrNull(message.subject))).toEqual([
        "mail 5",
        "mail 4",
        "mail 3"
      ])
      yield* inbox.clear
      expect(yield* inbox.list).toEqual([])
    })
  )

  it.effect("finds the http(s) links of the HTML and the text, each once", () =>
    Effect.gen(function* () {
      const inbox = yield* DevInbox.make()
      const link = "http://127.0.0.1:8081/verify?token=abc&type=signup&redirect_to=http://localhost:3000"
      const kept = yield* inbox.add(
        mail("Confirm", {
          html: Option.some(
            `<a href="${link.replaceAll("&", "&amp;")}">Confirm</a> <a href='javascript:alert(1)'>x</a> <a href=mailto:a@b.c>m</a>`
          ),
          text: `Follow this link: ${link}. Or visit (https://example.com/help).`
        })
      )
      expect(kept.links).toEqual([link, "https://example.com/help"])
    })
  )

  it("finds no link in a text without one", () => {
    expect(DevInbox.linksOf("123456 is your code", Option.none())).toEqual([])
    expect(
      DevInbox.linksOf("see http://", Option.some('<a href="&#x68;ttps://example.com/&#35;x">x</a>'))
    ).toEqual(["https://example.com/#x"])
  })
})
