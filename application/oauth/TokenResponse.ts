import { Duration, type Option, type Redacted } from "effect"
import * as Lifetimes from "../../domain/oauth/Lifetimes.js"

/** What /token answers (RFC 6749 §5.1); the HTTP layer writes it as JSON with `no-store`. */
export interface TokenResponse {
  readonly accessToken: Redacted.Redacted<string>
  readonly expiresIn: number
  readonly refreshToken: Option.Option<Redacted.Redacted<string>>
  readonly scope: Option.Option<string>
}

export const accessTokenSeconds = Duration.toSeconds(Lifetimes.oauthAccessToken)
