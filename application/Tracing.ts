import { Effect, FiberRef, type Tracer } from "effect"

/**
 * `Effect.withSpan` for the use cases and adapters on the hot paths (token, introspection,
 * registration, revocation), and free while tracing is off. Effect builds a no-op span even for
 * a disabled tracer — a copy of the fiber's context and an exit finalizer, about 9 µs a span on
 * a 2-core machine — and a refresh crosses five of them (docs/decisions/0005-hot-path.md).
 * With a tracer enabled, this is exactly `Effect.withSpan`.
 */
export const span =
  (name: string, options?: Tracer.SpanOptions) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (enabled) =>
      enabled ? Effect.withSpan(effect, name, options) : effect
    )
