import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import * as DevUpstream from "../../../adapters/idp/DevUpstream.js"

/**
 * A real OpenID provider (oidc-provider) on loopback for the auth service's sign-in tests, with
 * one confidential client whose callback is the auth service's on `authPort` (chosen before
 * either starts). With `keycloakPaths` it plays a Keycloak realm. Stops with `scope`.
 */
export const start = (
  scope: Scope.Scope,
  options: {
    readonly authPort: number
    readonly clientId: string
    readonly clientSecret: string
    readonly keycloakPaths?: boolean
  }
) =>
  Effect.runPromise(
    Scope.extend(
      DevUpstream.start({
        host: "127.0.0.1",
        ...(options.keycloakPaths === true ? { keycloakPaths: true } : {}),
        clients: [
          {
            client_id: options.clientId,
            client_secret: options.clientSecret,
            redirect_uris: [`http://127.0.0.1:${options.authPort}/callback`]
          }
        ]
      }),
      scope
    )
  )
