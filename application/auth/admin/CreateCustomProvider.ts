import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CustomProvider from "../../../domain/auth/CustomProvider.js"
import { Secrets } from "../../ports/Secrets.js"
import * as Telemetry from "../../Telemetry.js"
import * as AuthError from "../AuthError.js"
import { AuthSettings } from "../AuthSettings.js"
import { CustomProviderStore } from "../ports/CustomProviderStore.js"
import * as Rules from "./CustomProviderRules.js"

const taken = () => new AuthError.CustomProviderTaken()

const overQuota = () => new AuthError.CustomProviderQuotaReached()

/**
 * POST /admin/custom-providers (supabase-js `admin.customProviders.createProvider`): the body
 * checked in Supabase Auth's order, every URL checked as the outbound guard will, an OpenID
 * provider's discovery document fetched and checked, then the provider saved — within
 * `CUSTOM_OAUTH_MAX_PROVIDERS` counted for all instances at once.
 */
export const createCustomProvider = Telemetry.fn("admin.CreateCustomProvider")(
  (params: CustomProvider.Params) =>
    Effect.gen(function* () {
      yield* Rules.requireEnabled
      const fields = yield* Rules.checked(CustomProvider.checkNew(params))
      const store = yield* CustomProviderStore
      const settings = yield* AuthSettings
      // Counted first, as Supabase Auth does, so a full quota costs no call to the provider;
      // the insert counts again for all instances at once.
      const quota = settings.customProviders.quota
      if (Option.isSome(quota) && (yield* store.list(Option.none())).length >= quota.value)
        return yield* overQuota()
      yield* Rules.checked(CustomProvider.checkLengths(CustomProvider.urlsOf(fields)))
      yield* Rules.checkUrls(CustomProvider.urlsOf(fields))
      // Asked before discovery so a taken name costs no call to the provider; the insert
      // decides a race.
      if (Option.isSome(yield* store.find(fields.identifier))) return yield* taken()
      const discovery =
        fields.providerType === "oidc"
          ? Option.some(
              yield* Rules.discover(
                Option.getOrElse(CustomProvider.discoveryUrlOf(fields), () => ""),
                Option.getOrElse(fields.issuer, () => "")
              )
            )
          : Option.none()
      const now = new Date(yield* Clock.currentTimeMillis)
      const provider = new CustomProvider.CustomProvider({
        ...fields,
        id: yield* (yield* Secrets).uuid,
        discovery,
        createdAt: now,
        updatedAt: now
      })
      yield* store.create(yield* Rules.sealSecret(provider), settings.customProviders.quota).pipe(
        Effect.catchTags({
          IdentifierTaken: () => Effect.fail(taken()),
          OverProviderQuota: () => Effect.fail(overQuota())
        })
      )
      yield* Telemetry.annotate("custom_provider.identifier", provider.identifier)
      return provider
    })
)
