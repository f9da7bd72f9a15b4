import * as Effect from "effect/Effect"
import { listCustomProviders } from "../../../../application/auth/admin/ListCustomProviders.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as CustomProviderJson from "./CustomProviderJson.js"

/** GET /admin/custom-providers[?type=oauth2|oidc] — supabase-js `admin.customProviders.listProviders`. */
export const handle = (query: URLSearchParams) =>
  Effect.map(listCustomProviders(query.get("type") ?? ""), (providers) =>
    HttpMessage.json({ providers: providers.map(CustomProviderJson.encode) })
  )
