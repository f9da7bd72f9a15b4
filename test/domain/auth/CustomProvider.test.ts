import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as CustomProvider from "../../../domain/auth/CustomProvider.js"

describe("CustomProvider", () => {
  it("shapes claims: allow-listed claims kept under custom_claims, then the mapping applied", () => {
    const shaped = CustomProvider.shapeClaims(
      {
        customClaimsAllowlist: ["groups", "absent"],
        attributeMapping: { email: "mail", name: "display", tier: 3 }
      },
      { sub: "1", mail: "a@example.com", display: "Ann", groups: ["x"], email: "old@example.com" }
    )
    expect(shaped).toEqual({
      sub: "1",
      mail: "a@example.com",
      display: "Ann",
      groups: ["x"],
      email: "a@example.com",
      name: "Ann",
      tier: 3,
      custom_claims: { groups: ["x"] }
    })
    // A mapping from a claim the provider did not send leaves the target as it was.
    expect(
      CustomProvider.shapeClaims(
        { customClaimsAllowlist: [], attributeMapping: { email: "mail" } },
        { email: "e" }
      )
    ).toEqual({
      email: "e"
    })
  })

  it("checks a new provider's fields in Supabase Auth's order", () => {
    const message = (params: CustomProvider.Params) =>
      Either.match(CustomProvider.checkNew(params), {
        onLeft: (invalid) => invalid.message,
        onRight: () => "ok"
      })
    expect(message({})).toBe("provider_type must be either 'oauth2' or 'oidc'")
    expect(message({ providerType: "oidc" })).toBe("identifier is required")
    expect(message({ providerType: "oidc", identifier: `custom:${"a".repeat(44)}` })).toMatch(
      /^identifier must be 2 to 50/
    )
    expect(message({ providerType: "oidc", identifier: `custom:${"a".repeat(43)}` })).toBe("name is required")
    const oauth2: CustomProvider.Params = {
      providerType: "oauth2",
      identifier: "custom:a",
      name: "A",
      clientId: "c",
      clientSecret: "s",
      authorizationUrl: "https://a",
      tokenUrl: "https://t"
    }
    expect(message(oauth2)).toBe("userinfo_url is required for OAuth2 providers")
    const accepted = CustomProvider.checkNew({
      ...oauth2,
      userinfoUrl: "https://u",
      issuer: "https://ignored-for-oauth2",
      skipNonceCheck: true
    })
    expect(
      Either.map(accepted, (fields) => [
        fields.issuer,
        fields.skipNonceCheck,
        fields.pkceEnabled,
        fields.enabled
      ])
    ).toEqual(Either.right([Option.none(), false, true, true]))
  })

  it("finds the discovery document under the issuer unless a URL is given", () => {
    expect(
      CustomProvider.discoveryUrlOf({
        issuer: Option.some("https://id.example/realm/"),
        discoveryUrl: Option.none()
      })
    ).toEqual(Option.some("https://id.example/realm/.well-known/openid-configuration"))
    expect(
      CustomProvider.discoveryUrlOf({
        issuer: Option.some("https://id.example"),
        discoveryUrl: Option.some("https://d.example/x")
      })
    ).toEqual(Option.some("https://d.example/x"))
  })
})
