import * as Effect from "effect/Effect"
import * as AuthError from "../../../application/auth/AuthError.js"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { logout, type Scope } from "../../../application/auth/Logout.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as Bearer from "./Bearer.js"
import * as ErrorResponse from "./ErrorResponse.js"

const scopes: ReadonlyArray<Scope> = ["global", "local", "others"]
const isScope = (value: string): value is Scope => scopes.some((scope) => scope === value)

/** POST /logout?scope=global|local|others — supabase-js `signOut`; 204 as Supabase Auth. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    const scope = new URLSearchParams(request.query).get("scope") ?? ""
    const chosen = scope === "" ? "global" : scope
    const signedIn = yield* Authenticate.user(yield* Bearer.token(request))
    if (!isScope(chosen))
      return yield* new AuthError.InvalidInput({
        message: `Unsupported logout scope ${JSON.stringify(scope)}`
      })
    yield* logout(signedIn, chosen)
    return HttpMessage.empty(204)
  }).pipe(ErrorResponse.answering(request))
