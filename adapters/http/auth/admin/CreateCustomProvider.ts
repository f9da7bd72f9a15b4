import * as Effect from "effect/Effect"
import { createCustomProvider } from "../../../../application/auth/admin/CreateCustomProvider.js"
import type { Params } from "../../../../domain/auth/CustomProvider.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as CustomProviderJson from "./CustomProviderJson.js"

/** POST /admin/custom-providers — supabase-js `admin.customProviders.createProvider`. */
export const handle = (params: Params) =>
  Effect.map(createCustomProvider(params), (created) =>
    HttpMessage.json(CustomProviderJson.encode(created), 201)
  )
