import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type ClientId, GrantId, type UserId } from "../../domain/Ids.js"
import * as AuthorizationCode from "../../domain/oauth/AuthorizationCode.js"
import type { CodeChallenge } from "../../domain/Pkce.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as ClientRedirect from "./ClientRedirect.js"
import { OAuthSettings } from "./OAuthSettings.js"
import { AuthorizationCodeStore } from "./ports/AuthorizationCodeStore.js"

/** An authorization request that has a user and may now receive its code. */
export interface Approved {
  readonly clientId: ClientId
  readonly userId: UserId
  readonly redirectUri: string
  readonly codeChallenge: Option.Option<CodeChallenge>
  readonly clientState: Option.Option<string>
  readonly scope: Option.Option<string>
  readonly resource: Option.Option<string>
}

/** Stores a fresh single-use code and returns the client redirect carrying it, `state` and `iss`. */
export const issueCode = Telemetry.fn("IssueCode.issueCode")(
  (approved: Approved, now: Date) =>
    Effect.gen(function* () {
      const secrets = yield* Secrets
      const code = yield* secrets.token("code")
      const hash = yield* secrets.hash(code)
      const grantId = GrantId.make(yield* secrets.uuid)
      yield* Effect.flatMap(AuthorizationCodeStore, (codes) =>
        codes.issue(
          new AuthorizationCode.AuthorizationCode({
            hash,
            grantId,
            clientId: approved.clientId,
            userId: approved.userId,
            redirectUri: approved.redirectUri,
            codeChallenge: approved.codeChallenge,
            scope: approved.scope,
            resource: approved.resource,
            issuedAt: now,
            expiresAt: AuthorizationCode.expiryFor(now),
            consumedAt: Option.none()
          })
        )
      )
      const settings = yield* OAuthSettings
      return ClientRedirect.build(approved.redirectUri, {
        code: Redacted.value(code),
        state: Option.getOrUndefined(approved.clientState),
        iss: settings.issuer
      })
    }),
  (approved) => ({ "client.id": approved.clientId })
)
