import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Server from "../../support/oauth/OAuthServerHarness.js"

const Issued = Schema.Struct({ client_id: Schema.String, client_id_issued_at: Schema.Number })

describe("dynamic client registration (RFC 7591)", () => {
  it.live("answers 201 with the metadata as registered and a fresh client_id, uncached, with CORS", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* Server.start()
      yield* Effect.promise(async () => {
        const before = Math.floor(Date.now() / 1000)
        const response = await fetch(`${baseUrl}/register`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: "https://app.example.com" },
          body: JSON.stringify({
            client_name: "MCP inspector",
            redirect_uris: [
              "http://127.0.0.1/callback",
              "https://app.example.com/cb",
              "http://127.0.0.1/callback"
            ],
            grant_types: ["authorization_code"],
            token_endpoint_auth_method: "none",
            software_id: "ignored but accepted"
          })
        })
        expect(response.status).toBe(201)
        expect(response.headers.get("cache-control")).toBe("no-store")
        expect(response.headers.get("access-control-allow-origin")).toBe("*")
        const body = await response.json()
        expect(body).toEqual({
          client_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          client_id_issued_at: expect.any(Number),
          client_name: "MCP inspector",
          redirect_uris: ["http://127.0.0.1/callback", "https://app.example.com/cb"],
          token_endpoint_auth_method: "none",
          // What the client will be granted, not what it asked: a public client receives a
          // refresh token with its code's exchange (RFC 7591 §3.2.1 lets the server say so).
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"]
        })
        const { client_id, client_id_issued_at } = Schema.decodeUnknownSync(Issued)(body)
        // Seconds since the epoch, read from the server's wall clock. A minute of slack keeps the
        // check on the unit and the instant without also requiring that the wall clock never
        // steps back (NTP may) between the two readings around the request.
        expect(client_id_issued_at).toBeGreaterThanOrEqual(before - 60)
        expect(client_id_issued_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 60)

        const second = await fetch(`${baseUrl}/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: ["http://localhost/cb"] })
        }).then((r) => r.json())
        expect(Schema.decodeUnknownSync(Issued)(second).client_id).not.toBe(client_id)
        expect(second).toMatchObject({
          client_name: "",
          grant_types: ["authorization_code", "refresh_token"],
          token_endpoint_auth_method: "none"
        })
      })
    }).pipe(Effect.scoped)
  )
})
