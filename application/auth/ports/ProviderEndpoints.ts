import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Discovery } from "../../../domain/auth/CustomProvider.js"

/** Why a provider's URL or discovery document is refused; safe to show the operator. */
export class EndpointRefused extends Schema.TaggedError<EndpointRefused>()("EndpointRefused", {
  message: Schema.String
}) {}

/**
 * What the admin API checks of a custom provider's addresses before saving it, so a provider
 * that can never work is refused then, not at its first sign-in.
 */
export class ProviderEndpoints extends Context.Tag("latchkey/auth/ProviderEndpoints")<
  ProviderEndpoints,
  {
    /** An https URL whose host resolves to public addresses only, as the outbound guard wants. */
    readonly check: (url: string) => Effect.Effect<void, EndpointRefused>
    /**
     * Fetches the discovery document (through the outbound guard) and checks it names
     * `issuer` and has the endpoints a sign-in needs.
     */
    readonly discover: (discoveryUrl: string, issuer: string) => Effect.Effect<Discovery, EndpointRefused>
  }
>() {}
