import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ClientId, GrantId, SecretHash, UserId } from "../Ids.js"
import { CodeChallenge } from "../Pkce.js"
import * as Time from "../Time.js"
import * as Lifetimes from "./Lifetimes.js"

/**
 * Our own authorization code, issued at /callback and redeemed once at /token.
 * Only its hash is stored. It is bound to the client, the exact redirect URI used at
 * authorize, the PKCE challenge and the user; `grantId` ties it to every token it yields, so
 * that a second redemption can revoke them (RFC 6749 §4.1.2, RFC 9700 §4.2.4).
 */
export class AuthorizationCode extends Schema.Class<AuthorizationCode>("AuthorizationCode")({
  hash: SecretHash,
  grantId: GrantId,
  clientId: ClientId,
  userId: UserId,
  redirectUri: Schema.String,
  codeChallenge: Schema.OptionFromNullOr(CodeChallenge),
  scope: Schema.OptionFromNullOr(Schema.String),
  resource: Schema.OptionFromNullOr(Schema.String),
  issuedAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf,
  consumedAt: Schema.OptionFromNullOr(Schema.DateFromSelf)
}) {}

export const expiryFor = (issuedAt: Date): Date => Time.plus(issuedAt, Lifetimes.authorizationCode)

/**
 * Consumed and expired codes are kept a day before they are purged, so that a replay in that
 * time is still recognised as one and revokes the grant instead of passing as an unknown code.
 */
export const isPurgeable = (code: AuthorizationCode, now: Date): boolean =>
  Time.isAtOrAfter(now, Time.plus(code.expiresAt, Lifetimes.replayEvidence))

export class InvalidCode extends Schema.TaggedError<InvalidCode>()("InvalidCode", {
  reason: Schema.Literal(
    "unknown",
    "expired",
    "already_used",
    "client_mismatch",
    "redirect_uri_missing",
    "redirect_uri_mismatch"
  ),
  message: Schema.String
}) {}

const reject = (reason: InvalidCode["reason"], message: string) =>
  Either.left(new InvalidCode({ reason, message }))

/**
 * Checks a code that storage has just consumed on our behalf. `wasConsumed` tells whether it
 * had already been consumed before this presentation; a replay is reported as such even when
 * the code has expired meanwhile, because the caller must revoke what the first use issued.
 */
export const check = (
  code: AuthorizationCode,
  presented: {
    readonly clientId: ClientId
    readonly redirectUri: Option.Option<string>
    readonly wasConsumed: boolean
  },
  now: Date
): Either.Either<AuthorizationCode, InvalidCode> => {
  if (presented.wasConsumed) return reject("already_used", "authorization code has already been used")
  if (code.clientId !== presented.clientId) {
    return reject("client_mismatch", "authorization code was issued to another client")
  }
  if (Time.isAtOrAfter(now, code.expiresAt)) return reject("expired", "authorization code has expired")
  // OAuth 2.1 takes redirect_uri out of the token request (draft-ietf-oauth-v2-1 §4.1.3, §10):
  // the PKCE challenge binds the code to the client that asked for it, and clients written to
  // 2.1 do not send it. A code without a challenge has only its redirect URI to bind it (RFC
  // 6749 §4.1.3), so there it stays required. Sent, it must be the one used at authorize.
  if (Option.isNone(presented.redirectUri)) {
    return Option.isSome(code.codeChallenge)
      ? Either.right(code)
      : reject("redirect_uri_missing", "redirect_uri is required for a code issued without code_challenge")
  }
  if (code.redirectUri !== presented.redirectUri.value) {
    return reject("redirect_uri_mismatch", "redirect_uri does not match the one used at authorization")
  }
  return Either.right(code)
}

/** PKCE is mandatory for public clients; a confidential client may still opt in. */
export const requiresVerifier = (code: AuthorizationCode): boolean => Option.isSome(code.codeChallenge)
