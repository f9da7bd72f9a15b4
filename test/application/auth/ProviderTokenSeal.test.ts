import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as NodeSecrets from "../../../adapters/crypto/NodeSecrets.js"
import * as ProviderTokenSeal from "../../../application/auth/ProviderTokenSeal.js"

const tokens: ProviderTokenSeal.ProviderTokens = {
  accessToken: Redacted.make("gho_provider-access"),
  refreshToken: Option.some(Redacted.make("ghr_provider-refresh"))
}

const plain = (opened: Option.Option<ProviderTokenSeal.ProviderTokens>) =>
  Option.map(opened, (found) => [
    Redacted.value(found.accessToken),
    Option.getOrNull(Option.map(found.refreshToken, Redacted.value))
  ])

describe("ProviderTokenSeal", () => {
  it.effect("opens with the authorization code it was sealed under, and with nothing else", () =>
    Effect.gen(function* () {
      const sealed = yield* ProviderTokenSeal.seal("the-code", tokens)
      expect(sealed).not.toContain("gho_provider-access")
      expect(sealed).not.toContain("ghr_provider-refresh")
      expect(plain(yield* ProviderTokenSeal.open("the-code", sealed))).toEqual(
        Option.some(["gho_provider-access", "ghr_provider-refresh"])
      )
      expect(yield* ProviderTokenSeal.open("another-code", sealed)).toEqual(Option.none())
      const withoutRefresh = yield* ProviderTokenSeal.seal("code-2", {
        ...tokens,
        refreshToken: Option.none()
      })
      expect(plain(yield* ProviderTokenSeal.open("code-2", withoutRefresh))).toEqual(
        Option.some(["gho_provider-access", null])
      )
    }).pipe(Effect.provide(NodeSecrets.layer))
  )
})
