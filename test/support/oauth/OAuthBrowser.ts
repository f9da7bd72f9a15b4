import { createHash, randomBytes } from "node:crypto"
import * as Schema from "effect/Schema"
import { loginThroughForm } from "./DevUpstreamLogin.js"

/** A PKCE pair as a client makes it (RFC 7636 §4.1–4.2). */
export const pkce = () => {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

export const form = (
  baseUrl: string,
  path: string,
  params: Record<string, string>,
  headers: Record<string, string> = {}
) =>
  fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(params).toString()
  })

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`

export const registerClient = async (baseUrl: string, redirectUris: Array<string>) => {
  const response = await fetch(`${baseUrl}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: redirectUris, client_name: "e2e client" })
  })
  if (response.status !== 201)
    throw new Error(`registration failed: ${response.status} ${await response.text()}`)
  return Schema.decodeUnknownSync(Schema.Struct({ client_id: Schema.String }))(await response.json())
    .client_id
}

/**
 * Plays the browser through one login: our authorize endpoint, the dev upstream's login form,
 * our callback; returns where we finally send the browser (the client's redirect URI).
 */
export const login = async (authorizeUrl: URL, email = "ada@example.com"): Promise<URL> => {
  const authorize = await fetch(authorizeUrl, { redirect: "manual" })
  const upstream = authorize.headers.get("location")
  if (authorize.status !== 302 || upstream === null) {
    throw new Error(`authorize answered ${authorize.status}: ${await authorize.text()}`)
  }
  const callback = await loginThroughForm(new URL(upstream), email)
  const back = await fetch(callback, { redirect: "manual" })
  // Dynamic clients show our consent page on the first login: approve it as the user would.
  const answered = back.status === 200 ? await approveConsent(callback, back) : back
  const location = answered.headers.get("location")
  if (answered.status !== 302 || location === null) {
    throw new Error(`callback answered ${answered.status}: ${await answered.text()}`)
  }
  return new URL(location)
}

/** Reads our consent page and submits it, as the user would, with its CSRF cookie. */
export const consentForm = async (page: Response) => {
  const html = await page.text()
  const token = /name="consent_token" value="([^"]+)"/.exec(html)?.[1]
  const cookie = page.headers
    .getSetCookie()
    .find((c) => c.startsWith("latchkey_consent="))
    ?.split(";")[0]
  if (token === undefined || cookie === undefined)
    throw new Error(`not a consent page: ${html.slice(0, 200)}`)
  return { html, token, cookie }
}

export const submitConsent = (
  at: URL,
  form: { token: string; cookie: string },
  decision: "approve" | "deny"
) =>
  fetch(new URL("/consent", at), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: form.cookie },
    body: new URLSearchParams({ consent_token: form.token, decision }).toString()
  })

const approveConsent = async (at: URL, page: Response) =>
  submitConsent(at, await consentForm(page), "approve")

export const authorizeUrl = (baseUrl: string, params: Record<string, string>) => {
  const url = new URL(`${baseUrl}/`)
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value)
  return url
}

/** A successful /token response (RFC 6749 §5.1), decoded so a wrong shape fails the test. */
export const Tokens = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.String,
  expires_in: Schema.Number,
  refresh_token: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String)
})

export const tokensOf = async (response: Response) => Schema.decodeUnknownSync(Tokens)(await response.json())

/** An error response (RFC 6749 §5.2). */
export const errorOf = async (response: Response) =>
  Schema.decodeUnknownSync(Schema.Struct({ error: Schema.String, error_description: Schema.String }))(
    await response.json()
  )

/** A login of a public client with PKCE: the code that came back, and the verifier to redeem it. */
export const codeFor = async (
  baseUrl: string,
  clientId: string,
  redirectUri: string,
  params: Record<string, string> = {}
) => {
  const { verifier, challenge } = pkce()
  const back = await login(
    authorizeUrl(baseUrl, {
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: "code",
      code_challenge: challenge,
      code_challenge_method: "S256",
      ...params
    })
  )
  return { code: back.searchParams.get("code") ?? "", verifier, back }
}

/** POST /token with grant_type=authorization_code for a public client. */
export const exchange = (
  baseUrl: string,
  clientId: string,
  redirectUri: string,
  grant: { readonly code: string; readonly verifier: string },
  extra: Record<string, string> = {}
) =>
  form(baseUrl, "/token", {
    grant_type: "authorization_code",
    code: grant.code,
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: grant.verifier,
    ...extra
  })
