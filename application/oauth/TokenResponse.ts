import * as Duration from "effect/Duration"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Lifetimes from "../../domain/oauth/Lifetimes.js"

/** What /token answers (RFC 6749 §5.1); the HTTP layer writes it as JSON with `no-store`. */
export interface TokenResponse {
  readonly accessToken: Redacted.Redacted<string>
  readonly expiresIn: number
  readonly refreshToken: Option.Option<Redacted.Redacted<string>>
  readonly scope: Option.Option<string>
}

export const accessTokenSeconds = Duration.toSeconds(Lifetimes.oauthAccessToken)
