import * as Effect from "effect/Effect"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import { listCustomProviders } from "../../../../application/auth/admin/ListCustomProviders.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as Bearer from "../Bearer.js"
import * as ErrorResponse from "../ErrorResponse.js"
import * as CustomProviderJson from "./CustomProviderJson.js"

/** GET /admin/custom-providers[?type=oauth2|oidc] — supabase-js `admin.customProviders.listProviders`. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* Authenticate.admin(yield* Bearer.token(request))
    const type = new URLSearchParams(request.query).get("type") ?? ""
    const providers = yield* listCustomProviders(type)
    return HttpMessage.json({ providers: providers.map(CustomProviderJson.encode) })
  }).pipe(ErrorResponse.answering(request))
