import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { EndpointRefused, ProviderEndpoints } from "../../../../application/auth/ports/ProviderEndpoints.js"
import { Discovery } from "../../../../domain/auth/CustomProvider.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"

/**
 * The admin API's custom-provider use cases on the memory store, with a provider directory
 * that records what it was asked: a refused URL, a discovery document per issuer.
 */
export const directory = () => {
  const discovered: Array<string> = []
  const layer = Layer.succeed(ProviderEndpoints, {
    check: (url) =>
      url.includes("internal")
        ? Effect.fail(new EndpointRefused({ message: "URL cannot be used" }))
        : Effect.void,
    discover: (discoveryUrl, issuer) =>
      Effect.sync(() => discovered.push(discoveryUrl)).pipe(
        Effect.as(
          new Discovery({
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            jwks_uri: `${issuer}/jwks`
          })
        )
      )
  })
  return { discovered, layer }
}

/** The memory world with that directory: the layer, and what the directory was asked. */
export const services = (overrides: Parameters<typeof MemoryServices.layer>[0] = {}) => {
  const endpoints = directory()
  return { endpoints, layer: Layer.merge(MemoryServices.layer(overrides), endpoints.layer) }
}

/** CUSTOM_OAUTH_ENABLED off. */
export const disabled = () => services({ customProviders: { enabled: false, quota: Option.none() } }).layer
