import * as Effect from "effect/Effect"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import * as CustomProviderRules from "../../../../application/auth/admin/CustomProviderRules.js"
import { updateCustomProvider } from "../../../../application/auth/admin/UpdateCustomProvider.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as Bearer from "../Bearer.js"
import * as ErrorResponse from "../ErrorResponse.js"
import * as CustomProviderBody from "./CustomProviderBody.js"
import * as CustomProviderJson from "./CustomProviderJson.js"

/** PUT /admin/custom-providers/{identifier} — supabase-js `admin.customProviders.updateProvider`. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* Authenticate.admin(yield* Bearer.token(request))
    // Off, the feature answers 404 before the body is read, as Supabase Auth's middleware does.
    yield* CustomProviderRules.requireEnabled
    const params = yield* CustomProviderBody.decode(request)
    const updated = yield* updateCustomProvider(request.params.identifier ?? "", params)
    return HttpMessage.json(CustomProviderJson.encode(updated))
  }).pipe(ErrorResponse.answering(request))
