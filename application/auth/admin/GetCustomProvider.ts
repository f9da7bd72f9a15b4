import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CustomProvider from "../../../domain/auth/CustomProvider.js"
import * as Telemetry from "../../Telemetry.js"
import { CustomProviderStore } from "../ports/CustomProviderStore.js"
import * as Rules from "./CustomProviderRules.js"

/** GET /admin/custom-providers/{identifier} (supabase-js `admin.customProviders.getProvider`). */
export const getCustomProvider = Telemetry.fn("admin.GetCustomProvider")((identifier: string) =>
  Effect.gen(function* () {
    yield* Rules.requireEnabled
    yield* Rules.checked(CustomProvider.checkIdentifier(identifier))
    const found = yield* Effect.flatMap(CustomProviderStore, (store) => store.find(identifier))
    if (Option.isNone(found)) return yield* Rules.notFound()
    return found.value
  })
)
