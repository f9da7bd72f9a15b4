import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import * as IssueSession from "./IssueSession.js"
import * as NewUser from "./NewUser.js"
import { UserRepository } from "./ports/UserRepository.js"

/**
 * POST /signup without an email or a phone number (supabase-js `signInAnonymously`): a new
 * anonymous user, signed in at once with the `anonymous` method. Its rate limit
 * (`RATE_LIMIT_ANONYMOUS_USERS`) is the HTTP driver's.
 */
export const signInAnonymously = Telemetry.fn("SignInAnonymously.signInAnonymously")(
  (data: Readonly<Record<string, unknown>>, client: IssueSession.Client) =>
    Effect.gen(function* () {
      const settings = yield* AuthSettings
      if (!settings.anonymousEnabled) return yield* new AuthError.AnonymousSignInsDisabled()
      if (settings.disableSignup) return yield* new AuthError.SignupDisabled()
      const now = new Date(yield* Clock.currentTimeMillis)
      const secrets = yield* Secrets
      const user = NewUser.anonymous({
        id: NewUser.newUserId(yield* secrets.uuid),
        aud: settings.audience,
        data,
        now
      })
      // A fresh id and no email, phone or identity: nothing can collide.
      yield* (yield* UserRepository).insert(user, [], Option.none()).pipe(Effect.orDie)
      yield* Telemetry.annotate("user.id", user.id)
      return yield* IssueSession.issue(user, "anonymous", client)
    })
)
