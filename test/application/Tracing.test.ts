import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Tracing from "../../application/Tracing.js"

/** The span the wrapped effect runs in, by name; none when it runs outside any span. */
const spanName = Effect.currentSpan.pipe(
  Effect.map((span) => Option.some(span.name)),
  Effect.orElseSucceed(() => Option.none<string>())
)

describe("Tracing.span", () => {
  it.effect("is Effect.withSpan while a tracer is enabled", () =>
    Effect.gen(function* () {
      const name = yield* spanName.pipe(Tracing.span("Use.case", { attributes: { "client.id": "cli" } }))
      expect(name).toEqual(Option.some("Use.case"))
    })
  )

  it.effect("runs the effect without a span while tracing is off", () =>
    Effect.gen(function* () {
      const name = yield* spanName.pipe(Tracing.span("Use.case"), Effect.withTracerEnabled(false))
      expect(name).toEqual(Option.none())
    })
  )

  it.effect("keeps the effect's failure and result", () =>
    Effect.gen(function* () {
      const failed = yield* Effect.fail("refused").pipe(Tracing.span("Use.case"), Effect.flip)
      const succeeded = yield* Effect.succeed(42).pipe(
        Tracing.span("Use.case"),
        Effect.withTracerEnabled(false)
      )
      expect([failed, succeeded]).toEqual(["refused", 42])
    })
  )
})
