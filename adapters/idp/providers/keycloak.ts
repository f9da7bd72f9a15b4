import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UpstreamLoginFailed } from "../../../application/ports/UpstreamIdentityProvider.js"
import * as IdentityData from "../IdentityData.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"
import * as Oidc from "./oidc.js"

/**
 * Keycloak through OpenID Connect at the realm `EXTERNAL_KEYCLOAK_URL` names
 * (`https://<host>/realms/<realm>`, required): its endpoints are at fixed paths under the realm,
 * which is also the issuer of its ID tokens. As Supabase Auth does, the identity data is the
 * userinfo endpoint's answer: `name`, `email` and `email_verified` mapped, every other claim
 * (mappers' ones included) under `custom_claims`.
 */

const mapped: ReadonlySet<string> = new Set(["name", "sub", "email", "email_verified"])

export const profileOf = (realm: string) => (login: Oidc.Login) => {
  const claims = Option.getOrElse(login.userInfo, () => login.claims)
  const name = IdentityData.text(claims.name)
  const email = IdentityData.text(claims.email)
  return IdentityData.profileOf(
    "keycloak",
    {
      iss: realm,
      sub: login.subject,
      name,
      full_name: name,
      custom_claims: Object.fromEntries(Object.entries(claims).filter(([key]) => !mapped.has(key)))
    },
    IdentityData.single(email, claims.email_verified === true)
  )
}

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: true,
  nonce: true,
  url: "required",
  parameters: { login_hint: "login_hint", prompt: "prompt", kc_idp_hint: "kc_idp_hint" }
}

export const entry: ProviderEntry = {
  name: "keycloak",
  traits,
  build: (credentials) => {
    if (credentials.issuerUrl === undefined) {
      return Effect.fail(
        new UpstreamLoginFailed({
          message: "The keycloak provider needs its realm URL (https://<host>/realms/<realm>)"
        })
      )
    }
    const realm = credentials.issuerUrl.href.replace(/\/+$/, "")
    const endpoint = (path: string) => `${realm}/protocol/openid-connect/${path}`
    return Oidc.openId(
      {
        name: "keycloak",
        scopes: ["openid", "profile", "email"],
        pkce: true,
        nonce: true,
        clientAuthentication: "client_secret_basic",
        userInfo: "always",
        profile: profileOf(realm)
      },
      {
        _tag: "Fixed",
        metadata: {
          issuer: realm,
          authorization_endpoint: endpoint("auth"),
          token_endpoint: endpoint("token"),
          userinfo_endpoint: endpoint("userinfo"),
          jwks_uri: endpoint("certs")
        }
      },
      credentials
    )
  }
}
