import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { authorize } from "../../../application/auth/ExternalAuthorize.js"
import {
  type ExternalProvider,
  ExternalProviders
} from "../../../application/auth/ports/ExternalProviders.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { describedFailureOf } from "./support/Failure.js"

/**
 * A provider enabled without a setting its sign-in page needs (the Supabase CLI passes an
 * unresolved secret as an empty value): the service starts, and a sign-in through that page is
 * refused in Supabase Auth's words, naming what is missing.
 */
const enabledWithout = (reason: string): ExternalProvider => ({
  upstream: Either.left(reason),
  redirectUri: "https://auth.example.com/callback",
  emailOptional: false,
  passThrough: {},
  audiences: ["web-client"],
  shapeClaims: (claims) => claims,
  skipNonceCheck: false,
  idTokenIssuer: Option.none(),
  takeHandshake: (url) => ({ url, handshake: Option.none() })
})

const providers = Layer.succeed(ExternalProviders, {
  find: (name: string) =>
    Effect.succeed(
      name === "google"
        ? Option.some(enabledWithout("missing OAuth secret"))
        : name === "keycloak"
          ? Option.some(enabledWithout("unable to find URL for the Keycloak provider"))
          : Option.none()
    )
})

const refusal = (provider: string) =>
  authorize({
    provider,
    scopes: "",
    redirectTo: "",
    codeChallenge: "",
    codeChallengeMethod: "",
    query: new Map()
  }).pipe(describedFailureOf)

describe("GET /authorize at a provider enabled without what its page needs", () => {
  it.effect("is refused as Supabase Auth refuses it: validation_failed (400), naming what is missing", () =>
    Effect.gen(function* () {
      expect(yield* refusal("google")).toBe("validation_failed: Unsupported provider: missing OAuth secret")
      expect(yield* refusal("keycloak")).toBe(
        "validation_failed: Unsupported provider: unable to find URL for the Keycloak provider"
      )
      // A provider that is off keeps its own words.
      expect(yield* refusal("github")).toBe(
        "validation_failed: Unsupported provider: provider is not enabled"
      )
    }).pipe(Effect.provide(Layer.merge(MemoryServices.layer(), providers)))
  )
})
