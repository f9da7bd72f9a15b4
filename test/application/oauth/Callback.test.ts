import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { callback } from "../../../application/oauth/Callback.js"
import * as FakeUpstream from "../../support/oauth/FakeUpstream.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

/** An authorize request of the client, and the callback the upstream sends back after a login. */
const upstreamCallback = (clientId: string) =>
  Effect.gen(function* () {
    const started = yield* Harness.authorizeWith({
      client_id: clientId,
      redirect_uri: Harness.redirectUri,
      response_type: "code",
      code_challenge: "x".repeat(43),
      code_challenge_method: "S256"
    })
    if (started._tag !== "RedirectToUpstream")
      return yield* Effect.dieMessage("expected an upstream redirect")
    return FakeUpstream.callbackFor(started.location, "ada@example.com")
  })

describe("Callback (the upstream's redirect back), on memory adapters", () => {
  it.effect("a callback with an unknown or reused state shows an error", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const callbackUrl = yield* upstreamCallback(client.id)
      expect((yield* callback(callbackUrl))._tag).toBe("RedirectToClient")
      expect((yield* callback(callbackUrl))._tag).toBe("ShowError")
      expect((yield* callback(new URL("https://auth.example.com/callback?code=x")))._tag).toBe("ShowError")
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("tells the client whether the user declined, the upstream was unavailable, or it failed", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      /** The error a callback shaped by `shape` sends back to the client. */
      const errorAfter = (shape: (callbackUrl: URL) => URL) =>
        Effect.gen(function* () {
          const back = yield* callback(shape(yield* upstreamCallback(client.id)))
          if (back._tag !== "RedirectToClient") return yield* Effect.dieMessage("expected a client redirect")
          return new URL(back.location).searchParams.get("error")
        })
      const withParams = (params: Record<string, string>) => (url: URL) => {
        for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value)
        return url
      }
      expect(yield* errorAfter(withParams({ code: "unreachable" }))).toBe("temporarily_unavailable")
      expect(yield* errorAfter(withParams({ error: "access_denied" }))).toBe("access_denied")
      expect(yield* errorAfter(withParams({ error: "temporarily_unavailable" }))).toBe(
        "temporarily_unavailable"
      )
      expect(yield* errorAfter(withParams({ error: "server_error" }))).toBe("server_error")
      // The upstream refused the exchange (here: a callback without a code).
      expect(
        yield* errorAfter((url) => {
          url.searchParams.delete("code")
          return url
        })
      ).toBe("access_denied")
    }).pipe(Effect.provide(Harness.layer))
  )
})
