import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { constantTimeEqual } from "../../domain/ConstantTime.js"
import * as Scope from "../../domain/oauth/Scope.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import { type BrowserOutcome, errorToClient } from "./BrowserOutcome.js"
import { issueCode } from "./IssueCode.js"
import { OAuthError } from "./OAuthError.js"
import { OAuthSettings } from "./OAuthSettings.js"
import { ConsentStore } from "./ports/ConsentStore.js"

export interface ConsentDecision {
  /** The token from the submitted form. */
  readonly formToken: Option.Option<string>
  /** The same token from the cookie set with the page: a cross-site form post cannot know it. */
  readonly cookieToken: Option.Option<string>
  readonly approve: boolean
}

const expired: BrowserOutcome = {
  _tag: "ShowError",
  error: new OAuthError({
    code: "invalid_request",
    description: "this consent request has expired or was already answered; start again from your application"
  })
}

/** POST /consent — the user approves or denies a client on our consent page. */
export const decide = Telemetry.fn("Consent.decide")((decision: ConsentDecision) =>
  Effect.gen(function* () {
    const { formToken, cookieToken } = decision
    if (Option.isNone(formToken) || Option.isNone(cookieToken)) return expired
    if (!constantTimeEqual(formToken.value, cookieToken.value)) return expired
    const now = new Date(yield* Clock.currentTimeMillis)
    const tokenHash = yield* Effect.flatMap(Secrets, (secrets) =>
      secrets.hash(Redacted.make(formToken.value))
    )
    const consents = yield* ConsentStore
    const taken = yield* consents.take(tokenHash, now)
    if (Option.isNone(taken)) return expired
    const pending = taken.value
    yield* Telemetry.annotate("client.id", pending.clientId)
    if (!decision.approve) {
      const settings = yield* OAuthSettings
      return errorToClient(
        pending.redirectUri,
        { code: "access_denied", description: "the user denied the request" },
        Option.getOrUndefined(pending.clientState),
        settings.issuer
      )
    }
    yield* consents.grant(pending.userId, pending.clientId, Scope.requested(pending.scope), now)
    return { _tag: "RedirectToClient", location: yield* issueCode(pending, now) } satisfies BrowserOutcome
  })
)
