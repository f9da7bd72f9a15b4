import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Harness from "../../support/oauth/OAuthHarness.js"

describe("Authorize refusals, on memory adapters", () => {
  const outcome = (params: Record<string, string>, duplicates: Array<string> = []) =>
    Harness.authorizeWith(params, { repeated: duplicates })

  it.effect("never redirects for an unknown client or an unregistered redirect URI", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const unknown = yield* outcome({
        client_id: "nope",
        redirect_uri: Harness.redirectUri,
        response_type: "code"
      })
      expect(unknown._tag === "ShowError" && unknown.error.code).toBe("invalid_client")
      const foreign = yield* outcome({
        client_id: client.id,
        redirect_uri: "https://evil.example/cb",
        response_type: "code"
      })
      expect(foreign._tag === "ShowError" && foreign.error.description).toContain("not registered")
      const twice = yield* outcome({ client_id: client.id, redirect_uri: Harness.redirectUri }, [
        "redirect_uri"
      ])
      expect(twice._tag).toBe("ShowError")
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("redirects other errors to the client with state and iss", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const base = { client_id: client.id, redirect_uri: Harness.redirectUri, state: "s1" }
      const cases: Array<[Record<string, string>, Array<string>, string]> = [
        [{ ...base, response_type: "token" }, [], "unsupported_response_type"],
        [base, [], "invalid_request"],
        [
          {
            ...base,
            response_type: "code",
            code_challenge: "x".repeat(43),
            code_challenge_method: "S256",
            resource: "https://rs.example/"
          },
          ["resource"],
          "invalid_target"
        ],
        [{ ...base, response_type: "code" }, [], "invalid_request"],
        [
          { ...base, response_type: "code", code_challenge: "x".repeat(43), code_challenge_method: "plain" },
          [],
          "invalid_request"
        ],
        [
          {
            ...base,
            response_type: "code",
            code_challenge: "x".repeat(43),
            code_challenge_method: "S256",
            resource: "not a uri"
          },
          [],
          "invalid_target"
        ],
        [
          { ...base, response_type: "code", code_challenge: "x".repeat(43), code_challenge_method: "S256" },
          ["scope"],
          "invalid_request"
        ]
      ]
      for (const [params, duplicates, error] of cases) {
        const result = yield* outcome(params, duplicates)
        expect(result._tag).toBe("RedirectToClient")
        if (result._tag === "RedirectToClient") {
          const url = new URL(result.location)
          expect(url.searchParams.get("error")).toBe(error)
          expect(url.searchParams.get("state")).toBe("s1")
          expect(url.searchParams.get("iss")).toBe(Harness.issuer)
        }
      }
    }).pipe(Effect.provide(Harness.layer))
  )
})
