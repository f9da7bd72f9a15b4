import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as IdTokenIssuer from "../../../domain/auth/IdTokenIssuer.js"

const outcome = (rule: IdTokenIssuer.Rule, requested: string, named: string | undefined) =>
  Either.match(IdTokenIssuer.resolve(rule, requested, Option.fromNullable(named)), {
    onLeft: (refused) => refused.message,
    onRight: (issuer) => `issuer ${issuer}`
  })

describe("IdTokenIssuer", () => {
  it("Apple: either of its two issuers, as the token names it; anything else refused", () => {
    expect(outcome(IdTokenIssuer.apple, "", "https://appleid.apple.com")).toBe(
      "issuer https://appleid.apple.com"
    )
    expect(outcome(IdTokenIssuer.apple, "", "https://account.apple.com")).toBe(
      "issuer https://account.apple.com"
    )
    expect(outcome(IdTokenIssuer.apple, "", "https://appleid.apple.com.evil.example")).toBe(
      "Detected ID token issuer is not an Apple ID token issuer"
    )
    expect(outcome(IdTokenIssuer.apple, "", undefined)).toBe(
      "Unable to detect issuer in ID token for Apple provider"
    )
    expect(outcome(IdTokenIssuer.apple, "https://appleid.apple.com", "https://account.apple.com")).toBe(
      "Provided issuer does not match ID token issuer"
    )
  })

  it("Azure: any tenant's issuer, v2 or v1, as the token names it", () => {
    const tenant = "https://login.microsoftonline.com/9122040d-6c67-4c5b-b112-36a304b66dad/v2.0"
    expect(outcome(IdTokenIssuer.azure, "", tenant)).toBe(`issuer ${tenant}`)
    expect(outcome(IdTokenIssuer.azure, "", "https://sts.windows.net/9122040d/")).toBe(
      "issuer https://sts.windows.net/9122040d/"
    )
    expect(outcome(IdTokenIssuer.azure, "", "https://login.microsoftonline.com.evil.example/x")).toBe(
      "Detected ID token issuer is not an Azure ID token issuer"
    )
    expect(IdTokenIssuer.names(IdTokenIssuer.azure, tenant)).toBe(true)
    // A configured tenant takes its own tokens only; the shared ones take any tenant's.
    const pinned = IdTokenIssuer.azureFor(Option.some("https://login.microsoftonline.com/9122040d"))
    expect(outcome(pinned, "", tenant)).toBe("issuer https://login.microsoftonline.com/9122040d/v2.0")
    expect(IdTokenIssuer.azureFor(Option.some("https://login.microsoftonline.com/common"))).toEqual(
      IdTokenIssuer.azure
    )
    expect(IdTokenIssuer.azureFor(Option.none())).toEqual(IdTokenIssuer.azure)
    expect(IdTokenIssuer.names(IdTokenIssuer.azure, "https://sts.windows.net/9122040d/")).toBe(false)
  })

  it("a fixed issuer is the one checked, whatever the token names; an unset realm names nothing", () => {
    expect(outcome(IdTokenIssuer.google, "", "https://elsewhere.example")).toBe(
      "issuer https://accounts.google.com"
    )
    const unsetRealm = Option.getOrThrow(IdTokenIssuer.forProvider("keycloak", Option.none()))
    expect(IdTokenIssuer.names(unsetRealm, "")).toBe(false)
    expect(IdTokenIssuer.forProvider("github", Option.none())).toEqual(Option.none())
    expect(IdTokenIssuer.forProvider("snapchat", Option.none())).toEqual(Option.some(IdTokenIssuer.snapchat))
    expect(IdTokenIssuer.forProvider("kakao", Option.none())).toEqual(Option.some(IdTokenIssuer.kakao))
    expect(IdTokenIssuer.names(IdTokenIssuer.kakao, "https://kauth.kakao.com")).toBe(true)
    expect(IdTokenIssuer.byIssuer).toContain("kakao")
  })
})
