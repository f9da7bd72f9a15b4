import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Telemetry from "../../Telemetry.js"
import * as AuthError from "../AuthError.js"
import { CustomProviderStore } from "../ports/CustomProviderStore.js"
import * as Rules from "./CustomProviderRules.js"

/**
 * GET /admin/custom-providers[?type=oauth2|oidc] (supabase-js
 * `admin.customProviders.listProviders`): every custom provider, newest first.
 */
export const listCustomProviders = Telemetry.fn("admin.ListCustomProviders")((type: string) =>
  Effect.gen(function* () {
    yield* Rules.requireEnabled
    if (type !== "" && type !== "oauth2" && type !== "oidc")
      return yield* new AuthError.CustomProviderTypeInvalid()
    return yield* Effect.flatMap(CustomProviderStore, (store) =>
      store.list(type === "" ? Option.none() : Option.some(type))
    )
  })
)
