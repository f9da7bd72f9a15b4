import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { logout, type Scope } from "../../../application/auth/Logout.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as Refusal from "./Refusal.js"

const scopes: ReadonlyArray<Scope> = ["global", "local", "others"]
const isScope = (value: string): value is Scope => scopes.some((scope) => scope === value)

/** `?scope=global|local|others`, `global` when absent or empty. */
export const scope = (request: HttpRequest) => {
  const scope = new URLSearchParams(request.query).get("scope") ?? ""
  const chosen = scope === "" ? "global" : scope
  return isScope(chosen) ? Effect.succeed(chosen) : Effect.fail(new Refusal.LogoutScopeUnsupported({ scope }))
}

/** POST /logout?scope=global|local|others — supabase-js `signOut`; 204 as Supabase Auth. */
export const handle = (scope: Scope, signedIn: SignedIn) =>
  Effect.as(logout(signedIn, scope), HttpMessage.empty(204))
