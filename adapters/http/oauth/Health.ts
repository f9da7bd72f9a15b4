import * as Effect from "effect/Effect"
import * as HttpMessage from "../HttpMessage.js"
import { OAuthHttpConfig } from "./OAuthHttpConfig.js"

/**
 * GET /health — the process is up and serving HTTP (liveness), in the auth service's shape
 * (`version`, `name`, `description`); it asks nothing of the database (GET /health/ready does).
 */
export const handle = () =>
  Effect.map(OAuthHttpConfig, ({ version }) =>
    HttpMessage.json(
      {
        version,
        name: "latchkey-oauth",
        description: "latchkey oauth is an OAuth 2.1 authorization server for CLI and MCP-connector clients"
      },
      200,
      { "cache-control": "no-store" }
    )
  )
