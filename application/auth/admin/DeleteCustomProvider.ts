import * as Effect from "effect/Effect"
import * as CustomProvider from "../../../domain/auth/CustomProvider.js"
import * as Telemetry from "../../Telemetry.js"
import { CustomProviderStore } from "../ports/CustomProviderStore.js"
import * as Rules from "./CustomProviderRules.js"

/**
 * DELETE /admin/custom-providers/{identifier}: the provider goes; its identities stay with their
 * users (as in Supabase Auth), who sign in another way until a provider of that name returns.
 */
export const deleteCustomProvider = Telemetry.fn("admin.DeleteCustomProvider")((identifier: string) =>
  Effect.gen(function* () {
    yield* Rules.requireEnabled
    yield* Rules.checked(CustomProvider.checkIdentifier(identifier))
    if (!(yield* Effect.flatMap(CustomProviderStore, (store) => store.remove(identifier))))
      return yield* Rules.notFound()
  })
)
