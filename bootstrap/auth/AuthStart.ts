import type { ConfigError } from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as AuthConfig from "./AuthConfig.js"
import * as AuthEnvironment from "./AuthEnvironment.js"
import * as AuthVariables from "./AuthVariables.js"

/** How the auth service is being started. */
export type Mode =
  /** `latchkey auth serve`: alone, on `AUTHSVC_API_PORT`, else `PORT`. */
  | "alone"
  /** `latchkey serve`: beside the oauth service, which owns `PORT`; the auth service takes `AUTHSVC_API_PORT` or 8081. */
  | "beside"
  /** `latchkey dev` (`npm start`): beside, with development defaults for what is unset. */
  | "dev"

/**
 * What `npm start` fills in when unset: an application on localhost:3000, this service on
 * localhost:8081, and email sign-ups confirmed at once, since no mail is sent yet.
 */
export const developmentDefaults: ReadonlyMap<string, string> = new Map([
  ["AUTHSVC_SITE_URL", "http://localhost:3000"],
  ["AUTHSVC_API_EXTERNAL_URL", "http://localhost:8081"],
  ["AUTHSVC_MAILER_AUTOCONFIRM", "true"],
  ["AUTHSVC_EXTERNAL_ANONYMOUS_USERS_ENABLED", "true"]
])

/** The variables the auth service reads in `mode`: `.env` and the environment, adjusted. */
export const variables = (mode: Mode): Effect.Effect<AuthEnvironment.Variables, ConfigError> =>
  Effect.map(AuthEnvironment.load(), (loaded) => {
    const adjusted = new Map(loaded)
    if (mode !== "alone") adjusted.delete("PORT")
    if (mode === "dev") {
      for (const [name, value] of developmentDefaults) if (!adjusted.has(name)) adjusted.set(name, value)
    }
    return adjusted
  })

/** The configuration and the warnings about it, for `mode`. */
export const load = (mode: Mode) =>
  Effect.gen(function* () {
    const vars = yield* variables(mode)
    const config = yield* Effect.withConfigProvider(AuthConfig.server, AuthEnvironment.provider(vars))
    return { config, warnings: AuthVariables.warnings(vars) }
  })

/** The database part only, for `latchkey auth migrate` and the operator commands. */
export const loadDatabase = Effect.flatMap(variables("alone"), (vars) =>
  Effect.withConfigProvider(AuthConfig.database, AuthEnvironment.provider(vars))
)
