import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Telemetry from "../../application/Telemetry.js"

/** The span the wrapped effect runs in, by name and attributes; none outside any span. */
const currentSpan = Effect.currentSpan.pipe(
  Effect.map((span) => Option.some({ name: span.name, attributes: Object.fromEntries(span.attributes) })),
  Effect.orElseSucceed(() => Option.none<{ name: string; attributes: Record<string, unknown> }>())
)

const useCase = Telemetry.fn("Use.case")(
  (_clientId: string) => currentSpan,
  (clientId) => ({ "client.id": clientId })
)

describe("Telemetry.fn", () => {
  it.effect("makes each call a span, with the attributes of its arguments, while a tracer is enabled", () =>
    Effect.gen(function* () {
      const span = yield* useCase("cli")
      expect(Option.map(span, (s) => s.name)).toEqual(Option.some("Use.case"))
      expect(Option.map(span, (s) => s.attributes["client.id"])).toEqual(Option.some("cli"))
    })
  )

  it.effect("runs the function without a span while tracing is off, and does not compute attributes", () =>
    Effect.gen(function* () {
      let computed = 0
      const counted = Telemetry.fn("Use.case")(
        () => currentSpan,
        () => {
          computed++
          return {}
        }
      )
      const span = yield* counted().pipe(Effect.withTracerEnabled(false))
      expect(span).toEqual(Option.none())
      expect(computed).toBe(0)
    })
  )

  it.effect("keeps the function's failure and result", () =>
    Effect.gen(function* () {
      const failing = Telemetry.fn("Use.case")(() => Effect.fail("refused"))
      const succeeding = Telemetry.fn("Use.case")((n: number) => Effect.succeed(n * 2))
      const failed = yield* Effect.flip(failing())
      const succeeded = yield* succeeding(21).pipe(Effect.withTracerEnabled(false))
      expect([failed, succeeded]).toEqual(["refused", 42])
    })
  )
})

describe("Telemetry.annotate", () => {
  it.effect("adds an id to the current span and to the request's facts", () =>
    Effect.gen(function* () {
      const facts: Telemetry.Facts = { request_id: "r-1" }
      const span = yield* Telemetry.fn("Use.case")(() =>
        Effect.zipRight(Telemetry.annotate("client.id", "cli"), currentSpan)
      )().pipe(Effect.locally(Telemetry.currentFacts, facts))
      expect(facts).toEqual({ request_id: "r-1", "client.id": "cli" })
      expect(Option.map(span, (s) => s.attributes["client.id"])).toEqual(Option.some("cli"))
    })
  )

  it.effect("outside a request and a span it does nothing, and does not fail", () =>
    Effect.gen(function* () {
      yield* Telemetry.annotate("client.id", "cli").pipe(Effect.withTracerEnabled(false))
      expect(yield* Effect.exit(Telemetry.annotate("user.id", "u"))).toEqual(yield* Effect.exit(Effect.void))
    })
  )
})
