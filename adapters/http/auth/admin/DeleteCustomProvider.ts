import * as Effect from "effect/Effect"
import { deleteCustomProvider } from "../../../../application/auth/admin/DeleteCustomProvider.js"
import * as HttpMessage from "../../HttpMessage.js"

/** DELETE /admin/custom-providers/{identifier} — supabase-js `admin.customProviders.deleteProvider`; 204. */
export const handle = (identifier: string) =>
  Effect.as(deleteCustomProvider(identifier), HttpMessage.empty(204))
