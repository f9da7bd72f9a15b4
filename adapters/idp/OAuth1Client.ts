import { createHmac, hkdfSync, randomBytes } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UpstreamLoginFailed } from "../../application/ports/UpstreamIdentityProvider.js"
import * as AesGcm from "../crypto/AesGcm.js"
import * as GuardedFetch from "../outbound/GuardedFetch.js"
import * as UpstreamFailure from "./UpstreamFailure.js"

/**
 * OAuth 1.0a (RFC 5849) as a client needs it for Twitter's sign-in: requests signed with
 * HMAC-SHA1 in an `Authorization: OAuth …` header, the request-token and access-token steps, and
 * the sealing of the request token's secret between the redirect and the callback. openid-client
 * speaks OAuth 2.0 only.
 */

/** A key and its secret: the consumer (our app), or a request or access token. */
export interface Credential {
  readonly key: string
  readonly secret: string
}

/** RFC 3986 unreserved characters stay, everything else is %XX (RFC 5849 §3.6). */
export const percentEncode = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)

/**
 * The base string URI (§3.4.1.2): scheme and host lower-case, default port dropped, no query —
 * which is how the URL class already writes them.
 */
const baseUri = (url: URL): string => `${url.protocol}//${url.host}${url.pathname}`

/** The HMAC-SHA1 signature of a request (RFC 5849 §3.4.1 and §3.4.2). */
export const signature = (
  method: string,
  url: URL,
  parameters: ReadonlyArray<readonly [string, string]>,
  consumerSecret: string,
  tokenSecret: string
): string => {
  const normalized = [...url.searchParams.entries(), ...parameters]
    .map(([name, value]) => [percentEncode(name), percentEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&")
  const base = [method.toUpperCase(), percentEncode(baseUri(url)), percentEncode(normalized)].join("&")
  return createHmac("sha1", `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`)
    .update(base)
    .digest("base64")
}

/** The `Authorization` header of a signed request; `body` is its form parameters, if any. */
export const authorizationHeader = (options: {
  readonly method: string
  readonly url: URL
  readonly consumer: Credential
  readonly token: Option.Option<Credential>
  readonly oauth: Readonly<Record<string, string>>
  readonly body: Readonly<Record<string, string>>
  readonly nonce: string
  readonly timestamp: number
}): string => {
  const protocol: Record<string, string> = {
    ...options.oauth,
    oauth_consumer_key: options.consumer.key,
    oauth_nonce: options.nonce,
    oauth_signature_method: "HMAC-SHA1",
    oauth_timestamp: String(options.timestamp),
    oauth_version: "1.0",
    ...Option.match(options.token, { onNone: () => ({}), onSome: (token) => ({ oauth_token: token.key }) })
  }
  protocol.oauth_signature = signature(
    options.method,
    options.url,
    [...Object.entries(protocol), ...Object.entries(options.body)],
    options.consumer.secret,
    Option.match(options.token, { onNone: () => "", onSome: (token) => token.secret })
  )
  return `OAuth ${Object.entries(protocol)
    .map(([name, value]) => `${percentEncode(name)}="${percentEncode(value)}"`)
    .join(", ")}`
}

/**
 * Sends a signed request through the outbound guard (`guard`: `OAuthClient.guardOptions`) and
 * returns the body of a 2xx answer; anything else fails with its status.
 */
export const send = (
  context: string,
  guard: GuardedFetch.Options,
  method: "GET" | "POST",
  url: URL,
  consumer: Credential,
  token: Option.Option<Credential>,
  oauth: Readonly<Record<string, string>> = {},
  body: Readonly<Record<string, string>> = {}
): Effect.Effect<string, UpstreamLoginFailed> =>
  Effect.gen(function* () {
    const timestamp = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const authorization = authorizationHeader({
      method,
      url,
      consumer,
      token,
      oauth,
      body,
      nonce: randomBytes(16).toString("hex"),
      timestamp
    })
    const form = new URLSearchParams(body)
    const response = yield* Effect.mapError(
      GuardedFetch.request(
        {
          url,
          method,
          headers: {
            authorization,
            accept: "application/json",
            ...(method === "POST" ? { "content-type": "application/x-www-form-urlencoded" } : {})
          },
          ...(method === "POST" ? { body: form } : {})
        },
        { ...guard, redirect: "manual" }
      ),
      UpstreamFailure.failed(context)
    )
    if (response.status < 200 || response.status >= 300) {
      // The body may echo our request; only the status is safe to show.
      return yield* UpstreamFailure.httpStatus(context, response.status)
    }
    return GuardedFetch.text(response)
  })

/** The form-encoded token answers of the request-token and access-token steps. */
export const tokenOf = (
  context: string,
  body: string
): Effect.Effect<Credential & { readonly fields: URLSearchParams }, UpstreamLoginFailed> => {
  const fields = new URLSearchParams(body)
  const key = fields.get("oauth_token")
  const secret = fields.get("oauth_token_secret")
  return key === null || key === "" || secret === null
    ? Effect.fail(new UpstreamLoginFailed({ message: `${context}: unexpected response` }))
    : Effect.succeed({ key, secret, fields })
}

const sealKey = (codeVerifier: string, state: string): Buffer =>
  Buffer.from(hkdfSync("sha256", codeVerifier, state, "latchkey oauth1a request token", 32))

/**
 * The request token and its secret, encrypted (AES-256-GCM) under a key drawn from the login's
 * PKCE verifier and state, which never leave our side: whoever sees the sealed value (in the
 * service's flow state, or in a URL) learns nothing and cannot forge one for another login.
 */
export const seal = (token: Credential, codeVerifier: string, state: string): string => {
  const { nonce, tag, ciphertext } = AesGcm.encrypt(
    sealKey(codeVerifier, state),
    JSON.stringify([token.key, token.secret])
  )
  return Buffer.concat([nonce, tag, ciphertext]).toString("base64url")
}

export const unseal = (sealed: string, codeVerifier: string, state: string): Option.Option<Credential> => {
  try {
    const bytes = Buffer.from(sealed, "base64url")
    const plain = AesGcm.decrypt(sealKey(codeVerifier, state), {
      nonce: bytes.subarray(0, AesGcm.nonceBytes),
      tag: bytes.subarray(AesGcm.nonceBytes, AesGcm.nonceBytes + AesGcm.tagBytes),
      ciphertext: bytes.subarray(AesGcm.nonceBytes + AesGcm.tagBytes)
    })
    if (plain === undefined) return Option.none()
    const parsed: unknown = JSON.parse(plain.toString("utf8"))
    return Array.isArray(parsed) && typeof parsed[0] === "string" && typeof parsed[1] === "string"
      ? Option.some({ key: parsed[0], secret: parsed[1] })
      : Option.none()
  } catch {
    // A tampered, truncated or foreign value: not ours, whatever the reason.
    return Option.none()
  }
}

/** The parameter of an OAuth 1.0a authorization URL that carries the sealed request token. */
export const handshakeParameter = "latchkey_handshake"

/**
 * Takes the sealed request token off an authorization URL: the browser goes to the URL without
 * it, the service keeps it with the login and passes it back as `UpstreamRequest.handshake`.
 * An OAuth 2.0 provider's URL comes back unchanged, with no handshake.
 */
export const takeHandshake = (url: URL): { readonly url: URL; readonly handshake: Option.Option<string> } => {
  const handshake = Option.fromNullable(url.searchParams.get(handshakeParameter))
  if (Option.isNone(handshake)) return { url, handshake }
  const stripped = new URL(url)
  stripped.searchParams.delete(handshakeParameter)
  return { url: stripped, handshake }
}
