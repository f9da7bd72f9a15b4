import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as CustomProvider from "../../../domain/auth/CustomProvider.js"
import * as AuthError from "../AuthError.js"
import { AuthSettings } from "../AuthSettings.js"
import { ProviderEndpoints } from "../ports/ProviderEndpoints.js"

/** What every `/admin/custom-providers` use case checks first: the feature is on. */
export const requireEnabled = Effect.flatMap(AuthSettings, (settings) =>
  settings.customProviders.enabled ? Effect.void : Effect.fail(new AuthError.CustomProvidersDisabled())
)

/** A body a rule refuses, in the rule's words, which Supabase Auth answers with. */
export const checked = <A>(decision: Either.Either<A, CustomProvider.Invalid>) =>
  Either.match(decision, {
    onLeft: (refused) => Effect.fail(new AuthError.CustomProviderInvalid({ message: refused.message })),
    onRight: Effect.succeed
  })

export const notFound = () => new AuthError.CustomProviderNotFound()

/** Each URL must be one the outbound guard will call: https, at a public address. */
export const checkUrls = (urls: ReadonlyArray<string>) =>
  Effect.flatMap(ProviderEndpoints, (endpoints) =>
    Effect.forEach(urls, (url) => endpoints.check(url), { discard: true })
  ).pipe(
    Effect.catchTag("EndpointRefused", (refused) =>
      Effect.fail(new AuthError.ProviderEndpointRefused({ message: refused.message }))
    )
  )

/** The discovery document, fetched and checked before the provider is saved. */
export const discover = (discoveryUrl: string, issuer: string) =>
  Effect.flatMap(ProviderEndpoints, (endpoints) => endpoints.discover(discoveryUrl, issuer)).pipe(
    Effect.catchTag("EndpointRefused", (refused) =>
      Effect.fail(new AuthError.ProviderEndpointRefused({ message: refused.message }))
    )
  )
