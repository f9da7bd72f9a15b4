import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import type * as Tracer from "effect/Tracer"

/**
 * What is known about the request a fiber serves: the request id and route the HTTP server
 * puts there, the client and user ids the use cases learn. Every log line carries them, and
 * so does the request's span. A plain record, created once per request by the server; outside
 * a request (the CLI, background jobs) there is none.
 */
export type Facts = Record<string, string>

export const currentFacts: FiberRef.FiberRef<Facts | undefined> = FiberRef.unsafeMake<Facts | undefined>(
  undefined
)

type Attributes = Readonly<Record<string, unknown>>

/**
 * The one way to make a span: shaped like `Effect.fn` — a name, then the function whose
 * every call is that span — and free while tracing is off. Effect builds a no-op span even
 * for a disabled tracer (a copy of the fiber's context and an exit finalizer, ~9 µs on a
 * 2-core machine; a refresh crosses five), and `Effect.fn` also captures a stack trace per
 * call. Here a disabled tracer costs one fiber-ref read. `attributes` is only evaluated when
 * the span is made; it must never name a secret.
 */
export const fn =
  (name: string) =>
  <Args extends ReadonlyArray<unknown>, A, E, R>(
    body: (...args: Args) => Effect.Effect<A, E, R>,
    attributes?: (...args: Args) => Attributes
  ) =>
  (...args: Args): Effect.Effect<A, E, R> =>
    Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (enabled) =>
      enabled ? Effect.withSpan(body(...args), name, spanOptions(attributes?.(...args))) : body(...args)
    )

const spanOptions = (attributes: Attributes | undefined): Tracer.SpanOptions =>
  attributes === undefined ? { captureStackTrace: false } : { captureStackTrace: false, attributes }

/**
 * Records an id learned while serving a request (`client.id`, `user.id`): on the current span
 * when there is one, and among the request's facts, so that the log lines that follow and the
 * access log carry it. Never a secret.
 */
export const annotate = (key: string, value: string): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => {
    const facts = fiber.getFiberRef(currentFacts)
    if (facts !== undefined) facts[key] = value
    const span = fiber.currentSpan
    if (span !== undefined && span._tag === "Span") span.attribute(key, value)
    return Effect.void
  })
