import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { register } from "../../../application/oauth/Register.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

const request = (
  redirectUris: ReadonlyArray<string>,
  grantTypes = Option.none<ReadonlyArray<"authorization_code" | "refresh_token">>()
) => Either.right({ redirectUris, grantTypes, clientName: Option.some("an MCP client") })

/** The OAuth error code a registration fails with, or "ok". */
const codeOf = <A, R>(effect: Effect.Effect<A, { readonly code: string }, R>) =>
  Effect.map(Effect.either(effect), (result) => (Either.isLeft(result) ? result.left.code : "ok"))

describe("Register (POST /register, RFC 7591), on memory adapters", () => {
  it.effect("registers a dynamic public client with both grants by default", () =>
    Effect.gen(function* () {
      const registered = yield* register(
        request(["http://127.0.0.1/callback"]),
        "192.0.2.10",
        Harness.registerRateLimit
      )
      expect(registered.client.type).toBe("public")
      expect(registered.client.origin).toBe("dynamic")
      expect(registered.grantTypes).toEqual(["authorization_code", "refresh_token"])
      // Asked for the code grant alone, it is told of the refresh token it will receive.
      const codeOnly = yield* register(
        request(["http://127.0.0.1/callback"], Option.some(["authorization_code"])),
        "192.0.2.10",
        Harness.registerRateLimit
      )
      expect(codeOnly.grantTypes).toEqual(["authorization_code", "refresh_token"])
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("refuses bad metadata, and more registrations from one address than the limit", () =>
    Effect.gen(function* () {
      const limit = Harness.registerRateLimit
      expect(yield* codeOf(register(request([]), "192.0.2.11", limit))).toBe("invalid_redirect_uri")
      expect(yield* codeOf(register(request(["http://evil.example/cb"]), "192.0.2.11", limit))).toBe(
        "invalid_redirect_uri"
      )
      // An app's own scheme is taken, but never one the browser runs itself, not even beside it.
      expect(
        yield* codeOf(register(request(["myapp://cb", "javascript:alert(1)//"]), "192.0.2.11", limit))
      ).toBe("invalid_redirect_uri")
      expect(yield* codeOf(register(request(["myapp://cb"]), "192.0.2.11", limit))).toBe("ok")
      expect(
        yield* codeOf(
          register(request(["http://127.0.0.1/cb"], Option.some(["refresh_token"])), "192.0.2.11", limit)
        )
      ).toBe("invalid_client_metadata")
      const once = { max: 1, window: Duration.hours(1) }
      expect(yield* codeOf(register(request(["http://127.0.0.1/cb"]), "192.0.2.12", once))).toBe("ok")
      expect(yield* codeOf(register(request(["http://127.0.0.1/cb"]), "192.0.2.12", once))).toBe("slow_down")
    }).pipe(Effect.provide(Harness.layer))
  )
})
