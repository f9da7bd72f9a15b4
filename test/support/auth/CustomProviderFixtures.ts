import type { Params } from "../../../domain/auth/CustomProvider.js"

/** An admin API body for an OpenID custom provider at a made-up issuer, with `extra` over it. */
export const oidcParams = (identifier: string, extra: Partial<Params> = {}): Params => ({
  providerType: "oidc",
  identifier,
  name: "Acme",
  clientId: "client",
  clientSecret: "secret",
  issuer: "https://id.acme.example",
  ...extra
})
