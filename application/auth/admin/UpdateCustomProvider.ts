import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CustomProvider from "../../../domain/auth/CustomProvider.js"
import * as Telemetry from "../../Telemetry.js"
import { CustomProviderStore } from "../ports/CustomProviderStore.js"
import * as Rules from "./CustomProviderRules.js"

/**
 * PUT /admin/custom-providers/{identifier} (supabase-js `admin.customProviders.updateProvider`):
 * the fields given replace the stored ones; a new issuer or discovery URL is discovered again
 * before anything is saved. Instances see the change at their next sign-in with it.
 */
export const updateCustomProvider = Telemetry.fn("admin.UpdateCustomProvider")(
  (identifier: string, params: CustomProvider.Params) =>
    Effect.gen(function* () {
      yield* Rules.requireEnabled
      yield* Rules.checked(CustomProvider.checkIdentifier(identifier))
      yield* Rules.checked(CustomProvider.checkMaps(params))
      const store = yield* CustomProviderStore
      const existing = yield* store.find(identifier)
      if (Option.isNone(existing)) return yield* Rules.notFound()
      const now = new Date(yield* Clock.currentTimeMillis)
      const { provider, rediscover } = yield* Rules.checked(
        CustomProvider.update(existing.value, params, now)
      )
      const changed = CustomProvider.urlsOf(provider).filter(
        (url) => !CustomProvider.urlsOf(existing.value).includes(url)
      )
      yield* Rules.checked(CustomProvider.checkLengths(changed))
      yield* Rules.checkUrls(changed)
      const discovered = rediscover
        ? new CustomProvider.CustomProvider({
            ...provider,
            discovery: Option.some(
              yield* Rules.discover(
                Option.getOrElse(CustomProvider.discoveryUrlOf(provider), () => ""),
                Option.getOrElse(provider.issuer, () => "")
              )
            )
          })
        : provider
      // Without a new secret the stored one, sealed or not, stays as it is.
      const stored = CustomProvider.givesSecret(params) ? yield* Rules.sealSecret(discovered) : discovered
      if (!(yield* store.update(stored))) return yield* Rules.notFound()
      return discovered
    })
)
