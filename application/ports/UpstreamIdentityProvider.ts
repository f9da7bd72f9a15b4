import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { UpstreamProfile } from "../../domain/UpstreamProfile.js"

export class UpstreamLoginFailed extends Schema.TaggedError<UpstreamLoginFailed>()("UpstreamLoginFailed", {
  /** Safe to show to the user and to log: never a token, code or secret. */
  message: Schema.String,
  /**
   * The upstream could not be reached, did not answer in time, or failed on its side (HTTP 5xx):
   * the login may succeed if tried again, unlike one the upstream refused.
   */
  unavailable: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {}

/** What binds one round trip to the upstream: sent on the way out, checked on the way back. */
export interface UpstreamRequest {
  /** Our `state` at the upstream (opaque, high-entropy). */
  readonly state: string
  /** OpenID Connect nonce, checked in the ID token; ignored by plain OAuth 2.0 upstreams. */
  readonly nonce: string
  /** PKCE verifier (43 characters) for our code exchange with the upstream. */
  readonly codeVerifier: string
  /** Our callback URL, registered at the upstream (`BASE_URL/callback`). */
  readonly redirectUri: string
  /** Scopes asked for beyond the provider's own (the auth service's `/authorize?scopes=`). */
  readonly extraScopes?: ReadonlyArray<string> | undefined
  /**
   * Authorization parameters a provider takes from the sign-in request (WorkOS `connection`,
   * `organization`, `provider`; a `login_hint`), already filtered by the provider's own list.
   */
  readonly parameters?: Readonly<Record<string, string>> | undefined
  /**
   * OAuth 1.0a upstreams (Twitter) only: what their authorization URL asked to be kept until the
   * callback (the request token's secret, sealed). The service takes it off that URL and hands it
   * back here for the exchange; see the provider catalog's `takeHandshake`.
   */
  readonly handshake?: string | undefined
}

/** The identity provider users log in at (GitHub, Google, any OpenID provider, the dev upstream). */
export class UpstreamIdentityProvider extends Context.Tag("latchkey/UpstreamIdentityProvider")<
  UpstreamIdentityProvider,
  {
    /** Provider key recorded on identities: `github`, `google`, `oidc`, `dev`. */
    readonly name: string
    readonly authorizationUrl: (request: UpstreamRequest) => Effect.Effect<URL, UpstreamLoginFailed>
    /**
     * Exchanges the code the upstream sent back to our callback and returns who logged in:
     * checks the callback's state (and issuer, where the upstream names one), redeems the code
     * with the PKCE verifier, which the upstream checks, and at an OpenID upstream verifies the
     * ID token with its nonce. `callbackUrl` is the full URL the browser hit.
     */
    readonly exchange: (
      callbackUrl: URL,
      request: UpstreamRequest
    ) => Effect.Effect<UpstreamProfile, UpstreamLoginFailed>
  }
>() {}
