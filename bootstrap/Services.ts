import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as OAuthConfig from "./oauth/OAuthConfig.js"

/**
 * The oauth service's server, loaded only when something serves: the operator commands never
 * pay for the HTTP stack.
 */
const oauthServer = Effect.flatMap(OAuthConfig.server, (config) =>
  Effect.map(
    Effect.promise(() => import("./oauth/OAuthServer.js")),
    (OAuthServer) => OAuthServer.serve(config)
  )
)

/** `latchkey oauth serve`, until interrupted. */
export const serveOAuth = Effect.flatMap(oauthServer, Layer.launch)

/** Every service this build has, each on its own port, in one process (the auth service joins in its own issue). */
const services = [oauthServer]

/** `latchkey serve`, until interrupted. */
export const serveAll = Effect.flatMap(Effect.all(services), (layers) =>
  Layer.launch(Layer.mergeAll(Layer.empty, ...layers))
)
