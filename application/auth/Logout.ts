import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Telemetry from "../Telemetry.js"
import type { SignedIn } from "./Authenticate.js"
import { SessionStore } from "./ports/SessionStore.js"

/** POST /logout's `scope`: this session, every session of the user, or all but this one. */
export type Scope = "global" | "local" | "others"

/**
 * Ends sessions: their refresh tokens stop working at once, and so do their access tokens at
 * every endpoint that checks the session (the spec lets access JWTs live on until they expire;
 * Supabase Auth, and so this service, refuse them where it looks the session up). A token
 * without a session ends every session of its user, as Supabase Auth's does.
 */
export const logout = Telemetry.fn("Logout.logout")(
  (signedIn: SignedIn, scope: Scope) =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const now = new Date(yield* Clock.currentTimeMillis)
      const current = signedIn.session
      if (Option.isSome(current) && scope === "local") {
        yield* sessions.revoke(current.value.id, now)
      } else if (Option.isSome(current) && scope === "others") {
        yield* sessions.revokeOthers(signedIn.user.id, current.value.id, now)
      } else {
        yield* sessions.revokeAll(signedIn.user.id, now)
      }
    }),
  (signedIn, scope) => ({ "user.id": signedIn.user.id, scope })
)
