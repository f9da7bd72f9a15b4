import * as Effect from "effect/Effect"
import * as HttpMessage from "../HttpMessage.js"
import { AuthHttpConfig } from "./AuthHttpConfig.js"

/** GET /health — Supabase Auth's shape (`version`, `name`, `description`), our names. */
export const handle = () =>
  Effect.map(AuthHttpConfig, ({ version }) =>
    HttpMessage.json({
      version,
      name: "latchkey-auth",
      description:
        "latchkey auth is a user registration and authentication API, compatible with Supabase Auth"
    })
  )
