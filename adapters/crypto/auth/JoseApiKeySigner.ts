import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as jose from "jose"
import { ApiKeySigner } from "../../../application/auth/ports/ApiKeySigner.js"
import * as Telemetry from "../../../application/Telemetry.js"
import type * as ApiKey from "../../../domain/auth/ApiKey.js"

const encoder = new TextEncoder()

/**
 * HS256 with jose, the header as Supabase's keys have it (`alg`, `typ`, no `kid`): a token
 * without a `kid` is what the service checks against `JWT_SECRET`.
 */
export const layer = Layer.succeed(ApiKeySigner, {
  sign: Telemetry.fn("JoseApiKeySigner.sign")((claims: ApiKey.Claims, secret: Redacted.Redacted<string>) =>
    Effect.map(
      Effect.promise(() =>
        new jose.SignJWT({ ...claims })
          .setProtectedHeader({ alg: "HS256", typ: "JWT" })
          .sign(encoder.encode(Redacted.value(secret)))
      ),
      Redacted.make
    )
  )
})
