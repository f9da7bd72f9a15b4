import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as CustomProvider from "../../../domain/auth/CustomProvider.js"
import * as AuthError from "../AuthError.js"
import { AuthSettings } from "../AuthSettings.js"
import { ProviderEndpoints } from "../ports/ProviderEndpoints.js"
import { SecretsAtRest } from "../ports/SecretsAtRest.js"

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

/**
 * The provider as it is stored: its client secret sealed under the operator's key, bound to the
 * provider's id, when secrets are encrypted at rest (`SECURITY_DB_ENCRYPTION_ENCRYPT`), as
 * Supabase Auth stores it; else as given. The sign-in opens it (ExternalProviders).
 */
export const sealSecret = (provider: CustomProvider.CustomProvider) =>
  Effect.gen(function* () {
    const atRest = yield* SecretsAtRest
    const sealed = yield* atRest.seal(provider.id, Redacted.value(provider.clientSecret))
    return new CustomProvider.CustomProvider({ ...provider, clientSecret: Redacted.make(sealed) })
  })
