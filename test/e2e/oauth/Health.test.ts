import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { version } from "../../../bootstrap/Version.js"
import * as Healthcheck from "../../support/Healthcheck.js"
import * as Server from "../../support/oauth/OAuthServerHarness.js"
import * as RawHttp from "../../support/RawHttp.js"

const Health = Schema.Struct({ version: Schema.String, name: Schema.String, description: Schema.String })

describe("the oauth service's health answers", () => {
  it.live("GET /health: up, with the version; GET /health/ready: the database answered", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* Server.start()
      const health = yield* Effect.promise(() => RawHttp.send(baseUrl, { method: "GET", path: "/health" }))
      expect(health.status, health.body).toBe(200)
      expect(Schema.decodeUnknownSync(Health)(JSON.parse(health.body))).toMatchObject({
        version,
        name: "latchkey-oauth"
      })
      const ready = yield* Effect.promise(() =>
        RawHttp.send(baseUrl, { method: "GET", path: "/health/ready" })
      )
      expect(ready.status, ready.body).toBe(200)
      expect(JSON.parse(ready.body)).toEqual({ status: "ready" })
      expect(ready.headers["cache-control"]).toBe("no-store")
      // Not for browsers on other origins: no CORS headers.
      const fromPage = yield* Effect.promise(() =>
        RawHttp.send(baseUrl, {
          method: "GET",
          path: "/health/ready",
          headers: { origin: "https://a.example" }
        })
      )
      expect(fromPage.headers["access-control-allow-origin"]).toBeUndefined()

      // The image's HEALTHCHECK script, as compose.yaml runs it.
      const checked = yield* Healthcheck.run([`${baseUrl}/health/ready`])
      expect(checked.code, checked.output).toBe(0)
      expect(checked.output).toContain(`${baseUrl}/health/ready: ready`)
    }).pipe(Effect.scoped)
  )
})
