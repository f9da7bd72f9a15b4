import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { signInAnonymously } from "../../../application/auth/SignInAnonymously.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"
import { client } from "./support/Scenarios.js"

describe("SignInAnonymously (POST /signup without address), on memory adapters", () => {
  it.effect("makes an anonymous user with the given metadata and signs them in", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const grant = yield* signInAnonymously({ theme: "dark" }, client)
      expect(grant.user.isAnonymous).toBe(true)
      expect(Option.isNone(grant.user.email)).toBe(true)
      expect(grant.user.userMetadata).toEqual({ theme: "dark" })
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("is refused while anonymous sign-ins are off, or sign-ups are", () =>
    Effect.gen(function* () {
      const off = (overrides: Parameters<typeof MemoryServices.layer>[0]) =>
        failureOf(signInAnonymously({}, client)).pipe(Effect.provide(MemoryServices.layer(overrides)))
      expect(yield* off({ anonymousEnabled: false })).toBe("anonymous_provider_disabled")
      expect(yield* off({ disableSignup: true })).toBe("signup_disabled")
    })
  )
})
