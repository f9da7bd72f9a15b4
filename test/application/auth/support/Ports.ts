import type * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/**
 * Test layers for the auth use cases, in the manner of Effect's `examples/http-server`: a port a
 * test gives only some methods (or none: `partial(Mailer, {})`) dies on any other, naming the
 * port and the method (`latchkey/auth/Mailer: Unimplemented method "send"`), so a use case that
 * reaches further than its test expects fails loudly instead of meeting a quiet default.
 *
 * To run a use case on the memory world with one port made loud, merge it after the world:
 * `Layer.merge(MemoryServices.layer(), partial(SmsSender, {}))` (in a merge the later layer's
 * service wins).
 */
export const partial = <I, S extends object>(
  tag: Context.Tag<I, S>,
  service: Layer.PartialEffectful<S>
): Layer.Layer<I> => Layer.mock(tag, service)
