import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { decodeJwt, decodeProtectedHeader } from "jose"
import * as IdentityData from "../IdentityData.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"
import * as Oidc from "./oidc.js"

/**
 * Sign in with Apple is OpenID Connect at a fixed issuer, with three quirks:
 * - asked for `name` or `email`, Apple POSTs the callback as a form (`response_mode=form_post`);
 *   the auth service merges the form into the callback URL's query before the exchange;
 * - the user's name is told once, at the first sign-in, in the form's `user` field, never in
 *   the ID token; later sign-ins have none;
 * - the client secret is a JWT (ES256) signed with the team's key, which `EXTERNAL_APPLE_SECRET`
 *   holds as it is, as Supabase Auth takes it: it is made (and renewed, within six months) by
 *   the operator, not here.
 * Apple vouches for every address it hands out, relay addresses (`is_private_email`) included.
 * A configured URL is ignored.
 */

export const issuer = "https://appleid.apple.com"

/** The `user` field of Apple's first callback. */
export const User = Schema.Struct({
  name: Schema.optional(
    Schema.Struct({
      firstName: Schema.optional(Schema.NullOr(Schema.String)),
      lastName: Schema.optional(Schema.NullOr(Schema.String))
    })
  )
})
const decodeUser = Schema.decodeUnknownEither(Schema.parseJson(User))

/** The name from the callback's `user` field, when Apple sent one and it reads. */
export const nameOf = (callbackUrl: URL): string | undefined => {
  const field = callbackUrl.searchParams.get("user")
  if (field === null) return undefined
  return Either.match(decodeUser(field), {
    onLeft: () => undefined,
    onRight: (user) =>
      IdentityData.fullName(user.name?.firstName ?? undefined, user.name?.lastName ?? undefined)
  })
}

/** Apple sends `is_private_email` as a boolean or as `"true"` / `"false"`. */
const booleanish = (value: unknown): boolean | undefined =>
  typeof value === "boolean" ? value : value === "true" ? true : value === "false" ? false : undefined

/**
 * Apple's own claims, kept under `custom_claims` as Supabase Auth keeps them (a team transfer's
 * `transfer_sub` among them); nothing when the token has none.
 */
const customClaimsOf = (
  claims: Readonly<Record<string, unknown>>
): { custom_claims?: Record<string, unknown> } => {
  const custom: Record<string, unknown> = {}
  const isPrivate = booleanish(claims.is_private_email)
  if (isPrivate !== undefined) custom.is_private_email = isPrivate
  if (typeof claims.auth_time === "number") custom.auth_time = claims.auth_time
  const transferSubject = IdentityData.text(claims.transfer_sub)
  if (transferSubject !== undefined) custom.transfer_sub = transferSubject
  return Object.keys(custom).length === 0 ? {} : { custom_claims: custom }
}

/**
 * A native sign-in's ID token: its Apple claims moved under `custom_claims` and its address
 * counted as verified, as at the callback and as Supabase Auth reads Apple's tokens.
 */
export const idTokenClaims = (
  claims: Readonly<Record<string, unknown>>
): Readonly<Record<string, unknown>> => {
  const { is_private_email: _private, auth_time: _authTime, transfer_sub: _transfer, ...rest } = claims
  return IdentityData.addressVerified({ ...rest, ...customClaimsOf(claims) })
}

export const profileOf = (login: Oidc.Login) => {
  const { claims } = login
  const email = IdentityData.text(claims.email)
  const name = nameOf(login.callbackUrl)
  return IdentityData.profileOf(
    "apple",
    {
      iss: login.issuer,
      sub: login.subject,
      name,
      full_name: name,
      ...customClaimsOf(claims)
    },
    IdentityData.single(email, true)
  )
}

/**
 * Whether the secret can be Apple's client secret: a JWT signed with ES256 whose subject is the
 * client. Supabase Auth starts with any secret and Apple refuses the code exchange; here the
 * start says so (ConfigWarnings). Its expiry is Apple's to judge, at the token endpoint.
 */
export const isClientSecretFor = (clientId: string, secret: Redacted.Redacted<string>): boolean => {
  try {
    const value = Redacted.value(secret)
    return decodeProtectedHeader(value).alg === "ES256" && decodeJwt(value).sub === clientId
  } catch {
    return false
  }
}

export const traits: ProviderTraits = {
  callback: "form_post",
  protocol: "oauth2",
  pkce: false,
  nonce: true,
  url: "ignored",
  parameters: {}
}

export const entry: ProviderEntry = {
  name: "apple",
  traits,
  idTokenClaims,
  build: (credentials) =>
    Oidc.openId(
      {
        name: "apple",
        scopes: ["name", "email"],
        pkce: false,
        nonce: true,
        clientAuthentication: "client_secret_post",
        // Apple requires it whenever `name` or `email` is asked for.
        parameters: { response_mode: "form_post" },
        userInfo: "never",
        profile: profileOf
      },
      {
        _tag: "Fixed",
        metadata: {
          issuer,
          authorization_endpoint: `${issuer}/auth/authorize`,
          token_endpoint: `${issuer}/auth/token`,
          jwks_uri: `${issuer}/auth/keys`
        }
      },
      credentials
    )
}
