import * as Effect from "effect/Effect"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { AuthSettings } from "./AuthSettings.js"

/**
 * GET /user: the signed-in user with their identities and factors (supabase-js `mfa.listFactors`
 * and `getAuthenticatorAssuranceLevel` read them there). As in Supabase Auth, a token issued for
 * another audience (`aud`, its first entry when a list) than the service's is refused here.
 */
export const getUser = Telemetry.fn("GetUser.getUser")(
  (signedIn: SignedIn) =>
    Effect.gen(function* () {
      const settings = yield* AuthSettings
      const aud = signedIn.claims.aud
      const first = typeof aud === "string" ? aud : aud?.[0]
      if (first !== settings.audience) {
        return yield* new AuthError.TokenAudienceMismatch()
      }
      return { user: signedIn.user, identities: signedIn.identities, factors: signedIn.factors }
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
