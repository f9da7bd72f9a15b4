import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { CustomProviderStore } from "../../../application/auth/ports/CustomProviderStore.js"
import {
  type ExternalProvider,
  ExternalProviders
} from "../../../application/auth/ports/ExternalProviders.js"
import { SecretsAtRest } from "../../../application/auth/ports/SecretsAtRest.js"
import * as CustomProvider from "../../../domain/auth/CustomProvider.js"
import * as IdTokenIssuer from "../../../domain/auth/IdTokenIssuer.js"
import * as CustomUpstream from "./CustomUpstream.js"

export interface CustomSettings extends CustomUpstream.Reach {
  /** `CUSTOM_OAUTH_ENABLED`: off, no `custom:` name is found. */
  readonly enabled: boolean
  /** Our callback as custom providers know it (`CUSTOM_OAUTH_EXTERNAL_URL` or `API_EXTERNAL_URL`). */
  readonly redirectUri: string
}

/**
 * The providers a sign-in may name: the configured ones, built at start, and the custom ones,
 * read from the database at each sign-in (one indexed row) so that a provider saved, changed,
 * disabled or deleted through any instance counts at once everywhere. What is built of a custom
 * provider is kept per identifier and reused while the row's `updated_at` is the same. Its client
 * secret is opened here (SecretsAtRest), the one place that presents it.
 */
export const layer = (configured: ReadonlyMap<string, ExternalProvider>, custom: CustomSettings) =>
  Layer.effect(
    ExternalProviders,
    Effect.gen(function* () {
      const store = yield* CustomProviderStore
      const atRest = yield* SecretsAtRest
      const built = new Map<string, { readonly version: string; readonly provider: ExternalProvider }>()

      /** A saved provider as sign-ins use it, with its upstream or why it has none. */
      const providerOf = (
        saved: CustomProvider.CustomProvider,
        upstream: ExternalProvider["upstream"]
      ): ExternalProvider => ({
        upstream,
        redirectUri: custom.redirectUri,
        emailOptional: saved.emailOptional,
        passThrough: {},
        audiences: CustomProvider.audiencesOf(saved),
        shapeClaims: (claims) => CustomProvider.shapeClaims(saved, claims),
        skipNonceCheck: saved.skipNonceCheck,
        idTokenIssuer:
          saved.providerType === "oidc"
            ? Option.map(
                Option.orElse(
                  Option.map(saved.discovery, (document) => document.issuer),
                  () => saved.issuer
                ),
                IdTokenIssuer.fixed
              )
            : Option.none(),
        takeHandshake: (url) => ({ url, handshake: Option.none() })
      })

      const lookUp = (identifier: string) =>
        Effect.gen(function* () {
          const found = Option.filter(yield* store.find(identifier), (provider) => provider.enabled)
          if (Option.isNone(found)) {
            built.delete(identifier)
            return Option.none<ExternalProvider>()
          }
          const saved = found.value
          const version = `${saved.id}@${saved.updatedAt.getTime()}`
          const kept = built.get(identifier)
          if (kept !== undefined && kept.version === version) return Option.some(kept.provider)
          // A client secret sealed under a key this instance was not given cannot be presented:
          // the redirect flow is refused as Supabase Auth refuses it, naming the provider, and
          // the log names the key; an ID token, which needs no secret, still signs in. Nothing is
          // kept, so a restart with the key needs no further step.
          const secret = yield* atRest.open(saved.id, Redacted.value(saved.clientSecret)).pipe(Effect.either)
          if (Either.isLeft(secret)) {
            yield* Effect.logError("a custom provider's client secret cannot be opened").pipe(
              Effect.annotateLogs({ provider: identifier, key_id: secret.left.keyId ?? "" })
            )
            return Option.some(
              providerOf(saved, Either.left(`error decrypting client secret for provider ${identifier}`))
            )
          }
          const usable = new CustomProvider.CustomProvider({
            ...saved,
            clientSecret: Redacted.make(secret.right)
          })
          // A provider saved before a rule it breaks existed must not turn sign-ins into 500s:
          // it is unusable, as if it were off, and the log says why at each try.
          const upstream = yield* Effect.suspend(() => CustomUpstream.build(usable, custom)).pipe(
            Effect.catchAllDefect((defect) =>
              Effect.fail({ message: defect instanceof Error ? defect.message : "invalid provider" })
            ),
            Effect.tapError((error) =>
              Effect.logWarning("custom provider unusable", identifier, error.message)
            ),
            Effect.option
          )
          if (Option.isNone(upstream)) return Option.none<ExternalProvider>()
          const provider = providerOf(saved, Either.right(upstream.value))
          built.set(identifier, { version, provider })
          return Option.some(provider)
        })

      return {
        find: (name: string) =>
          CustomProvider.isCustom(name)
            ? custom.enabled
              ? lookUp(name)
              : Effect.succeed(Option.none())
            : Effect.succeed(Option.fromNullable(configured.get(name)))
      }
    })
  )
