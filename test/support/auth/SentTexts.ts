import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { type SmsMessage, SmsSender } from "../../../application/auth/ports/SmsSender.js"

/** The texts an in-memory gateway took, for use-case tests to read codes from. */
export class SentTexts extends Context.Tag("test/SentTexts")<
  SentTexts,
  Ref.Ref<ReadonlyArray<SmsMessage>>
>() {}

/** A gateway that keeps every text (sms and whatsapp) and never refuses one. */
export const layer: Layer.Layer<SmsSender | SentTexts> = Layer.effectContext(
  Effect.gen(function* () {
    const sent = yield* Ref.make<ReadonlyArray<SmsMessage>>([])
    return Context.make(SentTexts, sent).pipe(
      Context.add(SmsSender, {
        provider: "memory",
        supports: () => true,
        send: (message) => Ref.modify(sent, (all) => [`text-${all.length + 1}`, [...all, message]]),
        check: Option.none()
      })
    )
  })
)

/** The codes texted to `to` (with or without its `+`), oldest first. */
export const codesTo = (to: string) =>
  Effect.map(Effect.flatMap(SentTexts, Ref.get), (all) =>
    all
      .filter((message) => message.to === to.replace(/^\+/, ""))
      .map((message) => message.body.replace(/\D/g, ""))
  )
