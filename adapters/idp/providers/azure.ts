import * as IdentityData from "../IdentityData.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"
import * as Oidc from "./oidc.js"

/**
 * Microsoft Entra ID (Azure AD) through OpenID Connect, at the tenant `EXTERNAL_AZURE_URL` names
 * (default `https://login.microsoftonline.com/common`, any tenant and personal accounts),
 * found through its v2.0 discovery document. On `common` and `organizations` the ID token's
 * issuer is the user's own tenant; openid-client checks it against the `tid` claim. Only the ID
 * token is read, as Supabase Auth does. Its address counts as verified unless the token's
 * `xms_edov` claim says the domain owner did not verify it.
 */

export const commonTenant = "https://login.microsoftonline.com/common"

/** Claims of the ID token kept out of `custom_claims`: protocol bookkeeping, or mapped already. */
const notCustom: ReadonlySet<string> = new Set([
  "aud",
  "iss",
  "iat",
  "nbf",
  "exp",
  "c_hash",
  "at_hash",
  "aio",
  "nonce",
  "rh",
  "uti",
  "jti",
  "ver",
  "sub",
  "name",
  "preferred_username"
])

/**
 * Without `xms_edov` an address counts as verified, as Azure only sends unverified ones to
 * single-tenant apps; with it, as it says (sent as a boolean, `"1"` or `"true"`).
 */
export const emailVerified = (claims: Readonly<Record<string, unknown>>): boolean =>
  claims.xms_edov === undefined ? true : IdentityData.truthy(claims.xms_edov)

export const profileOf = (login: Oidc.Login) => {
  const { claims } = login
  const email = IdentityData.text(claims.email)
  const custom = Object.fromEntries(Object.entries(claims).filter(([key]) => !notCustom.has(key)))
  return IdentityData.profileOf(
    "azure",
    {
      // The user's tenant, where the discovered issuer is a template (`{tenantid}`).
      iss: IdentityData.text(claims.iss) ?? login.issuer,
      sub: login.subject,
      preferred_username: IdentityData.text(claims.preferred_username),
      full_name: IdentityData.text(claims.name),
      custom_claims: custom
    },
    IdentityData.single(email, emailVerified(claims))
  )
}

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: true,
  nonce: true,
  url: "optional",
  parameters: { login_hint: "login_hint", domain_hint: "domain_hint", prompt: "prompt" }
}

export const entry: ProviderEntry = {
  name: "azure",
  traits,
  build: (credentials) => {
    const tenant = (credentials.issuerUrl?.href ?? commonTenant).replace(/\/+$/, "")
    return Oidc.openId(
      {
        name: "azure",
        scopes: ["openid", "email", "profile"],
        pkce: true,
        nonce: true,
        clientAuthentication: "client_secret_post",
        userInfo: "never",
        profile: profileOf
      },
      { _tag: "Discovered", issuer: new URL(`${tenant}/v2.0`) },
      credentials
    )
  }
}
