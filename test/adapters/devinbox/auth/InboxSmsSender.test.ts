import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as InboxSmsSender from "../../../../adapters/devinbox/auth/InboxSmsSender.js"
import * as DevInbox from "../../../../adapters/devinbox/DevInbox.js"
import { SmsSender } from "../../../../application/auth/ports/SmsSender.js"

const services = InboxSmsSender.layer.pipe(Layer.provideMerge(DevInbox.layer()))

describe("InboxSmsSender", () => {
  it.effect("keeps every text in the inbox instead of sending it, on either channel", () =>
    Effect.gen(function* () {
      const sms = yield* SmsSender
      const inbox = yield* DevInbox.DevInbox
      expect(sms.provider).toBe("inbox")
      expect(sms.supports("sms")).toBe(true)
      expect(sms.supports("whatsapp")).toBe(true)
      expect(Option.isNone(sms.check)).toBe(true)

      const first = yield* sms.send({
        to: "15555550100",
        body: "Your code is 123456",
        channel: "sms",
        code: Redacted.make("123456")
      })
      const second = yield* sms.send({
        to: "15555550101",
        body: "Your code is 654321 https://example.com/app",
        channel: "whatsapp",
        code: Redacted.make("654321")
      })
      const kept = yield* inbox.list
      expect(kept.map((message) => message.id)).toEqual([second, first])
      expect(kept[1]).toMatchObject({
        kind: "sms",
        from: "",
        to: ["+15555550100"],
        subject: Option.none(),
        text: "Your code is 123456",
        html: Option.none(),
        links: []
      })
      expect(kept[0]?.links).toEqual(["https://example.com/app"])
    }).pipe(Effect.provide(services))
  )
})
