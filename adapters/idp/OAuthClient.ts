import * as Effect from "effect/Effect"
import * as client from "openid-client"
import type {
  UpstreamLoginFailed,
  UpstreamRequest
} from "../../application/ports/UpstreamIdentityProvider.js"
import * as UpstreamFailure from "./UpstreamFailure.js"

/** The openid-client plumbing every upstream shares, OpenID or plain OAuth 2.0. */

/** Seconds before a request to the upstream is abandoned; a login page should not hang. */
export const timeout = 10

const loopbackHosts: ReadonlySet<string> = new Set(["127.0.0.1", "[::1]", "localhost"])

/**
 * https, or plain http on this machine where nobody sits in between (the dev upstream); any
 * other http address would send our client secret and the user's tokens in the clear.
 */
export const transportOf = (url: URL): "https" | "loopback-http" | "refused" =>
  url.protocol === "https:"
    ? "https"
    : url.protocol === "http:" && loopbackHosts.has(url.hostname)
      ? "loopback-http"
      : "refused"

export const authorizationUrl = (
  config: client.Configuration,
  request: UpstreamRequest,
  parameters: Readonly<Record<string, string>>
): Effect.Effect<URL, UpstreamLoginFailed> =>
  Effect.tryPromise({
    try: async () =>
      client.buildAuthorizationUrl(config, {
        ...parameters,
        redirect_uri: request.redirectUri,
        state: request.state,
        code_challenge: await client.calculatePKCECodeChallenge(request.codeVerifier),
        code_challenge_method: "S256"
      }),
    catch: UpstreamFailure.failed("Could not build the upstream authorization URL")
  })

/**
 * The callback as the upstream addressed it: our registered redirect URI with the query the
 * browser brought. openid-client sends the URL without its query as `redirect_uri` to the token
 * endpoint, and it must equal the one we sent to the authorization endpoint, even when the
 * request reached us under another name (a proxy, a load balancer).
 */
const callbackAt = (callbackUrl: URL, request: UpstreamRequest): URL => {
  const current = new URL(request.redirectUri)
  current.search = callbackUrl.search
  current.hash = ""
  return current
}

/**
 * Checks the callback (issuer, state, error) and redeems the code with our PKCE verifier;
 * with `expectedNonce` also requires and verifies an ID token.
 */
export const codeGrant = (
  config: client.Configuration,
  callbackUrl: URL,
  request: UpstreamRequest,
  checks: Pick<client.AuthorizationCodeGrantChecks, "expectedNonce">,
  context: string
) =>
  Effect.tryPromise({
    try: () =>
      client.authorizationCodeGrant(config, callbackAt(callbackUrl, request), {
        ...checks,
        expectedState: request.state,
        pkceCodeVerifier: request.codeVerifier
      }),
    catch: UpstreamFailure.failed(context)
  })
