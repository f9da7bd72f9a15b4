import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { CustomProvider, ProviderType } from "../../../domain/auth/CustomProvider.js"

export class IdentifierTaken extends Schema.TaggedError<IdentifierTaken>()("IdentifierTaken", {}) {}

export class OverProviderQuota extends Schema.TaggedError<OverProviderQuota>()("OverProviderQuota", {}) {}

/**
 * The custom providers (`/admin/custom-providers`), in the database so that every instance signs
 * in with the same ones the moment one of them saves a change.
 */
export class CustomProviderStore extends Context.Tag("latchkey/auth/CustomProviderStore")<
  CustomProviderStore,
  {
    /**
     * Saves a new provider unless its identifier is taken or, with a quota, as many providers
     * exist already; the count and the insert are one step for all instances.
     */
    readonly create: (
      provider: CustomProvider,
      quota: Option.Option<number>
    ) => Effect.Effect<void, IdentifierTaken | OverProviderQuota>
    readonly find: (identifier: string) => Effect.Effect<Option.Option<CustomProvider>>
    /** Newest first; of one type when given. */
    readonly list: (type: Option.Option<ProviderType>) => Effect.Effect<ReadonlyArray<CustomProvider>>
    /** Replaces the provider with this id; false when it is gone. */
    readonly update: (provider: CustomProvider) => Effect.Effect<boolean>
    /** False when there was none. */
    readonly remove: (identifier: string) => Effect.Effect<boolean>
  }
>() {}
