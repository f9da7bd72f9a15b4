import * as Effect from "effect/Effect"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import { getCustomProvider } from "../../../../application/auth/admin/GetCustomProvider.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as Bearer from "../Bearer.js"
import * as ErrorResponse from "../ErrorResponse.js"
import * as CustomProviderJson from "./CustomProviderJson.js"

/** GET /admin/custom-providers/{identifier} — supabase-js `admin.customProviders.getProvider`. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* Authenticate.admin(yield* Bearer.token(request))
    const provider = yield* getCustomProvider(request.params.identifier ?? "")
    return HttpMessage.json(CustomProviderJson.encode(provider))
  }).pipe(ErrorResponse.answering(request))
