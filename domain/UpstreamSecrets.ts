import * as Effect from "effect/Effect"
import * as Base64Url from "./Base64Url.js"

const derive = (label: string, state: string) => Base64Url.sha256Of(`latchkey:${label}:${state}`)

/**
 * The nonce and PKCE verifier of one upstream round trip, derived from our high-entropy
 * `state` (one-way, domain-separated). Only the state's hash is stored, so neither secret is
 * at rest, and whoever does not hold the state cannot finish the login.
 */
export const fromState = (
  state: string
): Effect.Effect<{ readonly nonce: string; readonly codeVerifier: string }> =>
  Effect.all({ nonce: derive("nonce", state), codeVerifier: derive("pkce", state) })
