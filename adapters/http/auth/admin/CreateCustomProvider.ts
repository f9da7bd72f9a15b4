import * as Effect from "effect/Effect"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import { createCustomProvider } from "../../../../application/auth/admin/CreateCustomProvider.js"
import * as CustomProviderRules from "../../../../application/auth/admin/CustomProviderRules.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as Bearer from "../Bearer.js"
import * as ErrorResponse from "../ErrorResponse.js"
import * as CustomProviderBody from "./CustomProviderBody.js"
import * as CustomProviderJson from "./CustomProviderJson.js"

/** POST /admin/custom-providers — supabase-js `admin.customProviders.createProvider`. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* Authenticate.admin(yield* Bearer.token(request))
    // Off, the feature answers 404 before the body is read, as Supabase Auth's middleware does.
    yield* CustomProviderRules.requireEnabled
    const created = yield* createCustomProvider(yield* CustomProviderBody.decode(request))
    return HttpMessage.json(CustomProviderJson.encode(created), 201)
  }).pipe(ErrorResponse.answering(request))
