import * as Effect from "effect/Effect"
import { getCustomProvider } from "../../../../application/auth/admin/GetCustomProvider.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as CustomProviderJson from "./CustomProviderJson.js"

/** GET /admin/custom-providers/{identifier} — supabase-js `admin.customProviders.getProvider`. */
export const handle = (identifier: string) =>
  Effect.map(getCustomProvider(identifier), (provider) =>
    HttpMessage.json(CustomProviderJson.encode(provider))
  )
