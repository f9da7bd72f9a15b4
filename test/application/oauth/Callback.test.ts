import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { callback } from "../../../application/oauth/Callback.js"
import * as FakeUpstream from "../../support/oauth/FakeUpstream.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

describe("Callback (the upstream's redirect back), on memory adapters", () => {
  it.effect("a callback with an unknown or reused state shows an error", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const started = yield* Harness.authorizeWith({
        client_id: client.id,
        redirect_uri: Harness.redirectUri,
        response_type: "code",
        code_challenge: "x".repeat(43),
        code_challenge_method: "S256"
      })
      if (started._tag !== "RedirectToUpstream")
        return yield* Effect.dieMessage("expected an upstream redirect")
      const callbackUrl = FakeUpstream.callbackFor(started.location, "ada@example.com")
      expect((yield* callback(callbackUrl))._tag).toBe("RedirectToClient")
      expect((yield* callback(callbackUrl))._tag).toBe("ShowError")
      expect((yield* callback(new URL("https://auth.example.com/callback?code=x")))._tag).toBe("ShowError")
    }).pipe(Effect.provide(Harness.layer))
  )
})
