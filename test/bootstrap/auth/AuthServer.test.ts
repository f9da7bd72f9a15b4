import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AuthConfig from "../../../bootstrap/auth/AuthConfig.js"
import * as AuthEnvironment from "../../../bootstrap/auth/AuthEnvironment.js"
import { clientIpHeaders } from "../../../bootstrap/auth/AuthServer.js"

/** The headers the auth service reads the client address from, configured by `env`. */
const headersFor = (env: Record<string, string>) =>
  Effect.map(
    Effect.withConfigProvider(
      AuthConfig.server,
      AuthEnvironment.provider(
        AuthEnvironment.merge(Option.none(), {
          AUTHSVC_SITE_URL: "https://app.example.com",
          AUTHSVC_API_EXTERNAL_URL: "https://auth.example.com",
          ...env
        })
      )
    ),
    clientIpHeaders
  )

describe("the auth service's client address", () => {
  it.effect(
    "is read from Sb-Forwarded-For first when trusted, as Supabase Auth reads it, then RATE_LIMIT_HEADER",
    () =>
      Effect.gen(function* () {
        expect(yield* headersFor({})).toEqual([])
        expect(yield* headersFor({ AUTHSVC_RATE_LIMIT_HEADER: "X-Real-IP" })).toEqual(["X-Real-IP"])
        expect(
          yield* headersFor({
            AUTHSVC_RATE_LIMIT_HEADER: "X-Real-IP",
            AUTHSVC_SECURITY_SB_FORWARDED_FOR_ENABLED: "true"
          })
        ).toEqual(["Sb-Forwarded-For", "X-Real-IP"])
        expect(
          yield* headersFor({
            AUTHSVC_SECURITY_SB_FORWARDED_FOR_ENABLED: "true",
            AUTHSVC_SECURITY_SVC_FORWARDED_FOR_ENABLED: "true"
          })
        ).toEqual(["Svc-Forwarded-For"])
      })
  )
})
