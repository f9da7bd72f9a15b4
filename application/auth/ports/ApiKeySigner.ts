import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as ApiKey from "../../../domain/auth/ApiKey.js"

/** Signs an API key's claims as an HS256 JWT with a shared secret (`JWT_SECRET`). */
export class ApiKeySigner extends Context.Tag("latchkey/auth/ApiKeySigner")<
  ApiKeySigner,
  {
    readonly sign: (
      claims: ApiKey.Claims,
      secret: Redacted.Redacted<string>
    ) => Effect.Effect<Redacted.Redacted<string>>
  }
>() {}
