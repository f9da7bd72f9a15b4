import * as DevUpstream from "../../../adapters/idp/DevUpstream.js"

/**
 * A Keycloak realm as a deployment runs one beside the services, played by oidc-provider on
 * 127.0.0.1 over plain http: issuer `http://127.0.0.1:PORT/realms/acme`, Keycloak's endpoint
 * paths under it, one confidential client whose callback is `callbackUrl`. Any email signs in
 * at its login form (`DevUpstreamLogin.loginThroughForm`). Stops with the scope.
 */
export const start = (client: {
  readonly clientId: string
  readonly clientSecret: string
  readonly callbackUrl: string
}) =>
  DevUpstream.start({
    host: "127.0.0.1",
    realm: "acme",
    keycloakPaths: true,
    clients: [
      { client_id: client.clientId, client_secret: client.clientSecret, redirect_uris: [client.callbackUrl] }
    ]
  })
