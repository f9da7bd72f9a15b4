import * as Effect from "effect/Effect"
import { updateCustomProvider } from "../../../../application/auth/admin/UpdateCustomProvider.js"
import type { Params } from "../../../../domain/auth/CustomProvider.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as CustomProviderJson from "./CustomProviderJson.js"

/** PUT /admin/custom-providers/{identifier} — supabase-js `admin.customProviders.updateProvider`. */
export const handle = (params: Params, _: unknown, request: HttpRequest) =>
  Effect.map(updateCustomProvider(request.params.identifier ?? "", params), (updated) =>
    HttpMessage.json(CustomProviderJson.encode(updated))
  )
