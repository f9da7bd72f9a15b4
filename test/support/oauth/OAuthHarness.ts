import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as NodeSecrets from "../../../adapters/crypto/NodeSecrets.js"
import * as Authorize from "../../../adapters/http/oauth/Authorize.js"
import * as OAuthStorageMemory from "../../../adapters/memory/oauth/OAuthStorageMemory.js"
import { authorize } from "../../../application/oauth/Authorize.js"
import { callback } from "../../../application/oauth/Callback.js"
import { authenticate, findClient } from "../../../application/oauth/ClientAuthentication.js"
import { decide } from "../../../application/oauth/Consent.js"
import { exchangeCode } from "../../../application/oauth/ExchangeCode.js"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import { OAuthSettings } from "../../../application/oauth/OAuthSettings.js"
import type { ClientKeys } from "../../../application/oauth/ports/ClientKeys.js"
import {
  ClientMetadataFetcher,
  ClientMetadataUnavailable
} from "../../../application/oauth/ports/ClientMetadataFetcher.js"
import { refresh } from "../../../application/oauth/Refresh.js"
import { register } from "../../../application/oauth/Register.js"
import { ClientId } from "../../../domain/Ids.js"
import type * as AuthorizationRequest from "../../../domain/oauth/AuthorizationRequest.js"
import * as Pkce from "../../../domain/Pkce.js"
import * as FakeUpstream from "./FakeUpstream.js"
import * as StaticClientKeys from "./StaticClientKeys.js"

export const issuer = "https://auth.example.com"

export const settings = Layer.succeed(OAuthSettings, {
  issuer,
  callbackUrl: `${issuer}/callback`,
  cliClientId: ClientId.make("cli")
})

/** No Client ID Metadata Document can be fetched here; tests that need one provide their own. */
export const noMetadataDocuments = Layer.succeed(ClientMetadataFetcher, {
  fetch: (url) =>
    Effect.fail(new ClientMetadataUnavailable({ url: url.href, reason: "no documents in this test" }))
})

/** The oauth use cases on memory storage, real crypto, a fake upstream and the given fetcher. */
export const layerWith = (
  metadataDocuments: Layer.Layer<ClientMetadataFetcher>,
  keys: Layer.Layer<ClientKeys> = StaticClientKeys.none
) =>
  Layer.mergeAll(
    OAuthStorageMemory.layer,
    metadataDocuments,
    keys,
    NodeSecrets.layer,
    FakeUpstream.layer,
    settings
  )

/** The oauth use cases on memory storage, real crypto and a fake upstream. */
export const layer = layerWith(noMetadataDocuments)

export const registerRateLimit = { max: 1000, window: Duration.hours(1) }

export const verifier = "a".repeat(43)
export const redirectUri = "http://127.0.0.1:53682/callback"

export const publicClient = ManageClients.create({
  name: "cli test",
  redirectUris: ["http://127.0.0.1/callback"],
  confidential: false,
  clientId: Option.none(),
  secret: Option.none()
}).pipe(Effect.map(({ client }) => client))

/**
 * An authorization request from its query parameters, decoded as the HTTP adapter decodes a
 * query; each name in `repeated` is sent twice.
 */
export const parameters = (
  params: Readonly<Record<string, string>>,
  repeated: ReadonlyArray<string> = []
): AuthorizationRequest.Parameters => {
  const query = new URLSearchParams(Object.entries(params).filter(([name]) => !repeated.includes(name)))
  for (const name of repeated) {
    query.append(name, params[name] ?? "first")
    query.append(name, "second")
  }
  return Authorize.parameters(query.toString())
}

/** GET / with these query parameters, and the browser's session cookie if it has one. */
export const authorizeWith = (
  params: Readonly<Record<string, string>>,
  options: { readonly repeated?: ReadonlyArray<string>; readonly session?: string | undefined } = {}
) => authorize(parameters(params, options.repeated), Option.fromNullable(options.session))

/** A client registered through RFC 7591 dynamic registration. */
export const dynamicClient = register(
  Either.right({
    redirectUris: ["http://127.0.0.1/callback"],
    grantTypes: Option.none(),
    clientName: Option.some("MCP test")
  }),
  "192.0.2.1",
  registerRateLimit
).pipe(
  Effect.flatMap((registered) => findClient(registered.client.id)),
  Effect.flatMap(Effect.orDie)
)

/** Authorize → upstream login → callback: the client's redirect with our code. */
export const loginFlow = (
  clientId: string,
  options: { email?: string; withPkce?: boolean; redirect?: string; resource?: string | null } = {}
) =>
  Effect.gen(function* () {
    const challenge = yield* Pkce.challengeOf(verifier)
    const params: Record<string, string> = {
      client_id: clientId,
      redirect_uri: options.redirect ?? redirectUri,
      response_type: "code",
      state: "client-state",
      scope: "openid email"
    }
    // The resource server the tokens are for (RFC 8707); `null`: the request names none.
    if (options.resource !== null) params.resource = options.resource ?? "https://api.example.com"
    if (options.withPkce !== false) {
      params.code_challenge = challenge
      params.code_challenge_method = "S256"
    }
    const started = yield* authorizeWith(params)
    if (started._tag !== "RedirectToUpstream")
      return yield* Effect.dieMessage(`authorize: ${JSON.stringify(started)}`)
    const back = yield* callback(
      FakeUpstream.callbackFor(started.location, options.email ?? "ada@example.com")
    )
    // Dynamic clients ask for consent on the first login: approve it as the user would.
    const done =
      back._tag === "ShowConsent"
        ? yield* decide({
            formToken: Option.some(Redacted.value(back.prompt.token)),
            cookieToken: Option.some(Redacted.value(back.prompt.token)),
            approve: true
          })
        : back
    if (done._tag !== "RedirectToClient") return yield* Effect.dieMessage(`callback: ${JSON.stringify(done)}`)
    return new URL(done.location)
  })

/** The full public-client login: returns the token response. */
export const publicLogin = (clientId: string) =>
  Effect.gen(function* () {
    const back = yield* loginFlow(clientId)
    const client = yield* authenticate({
      clientId: Option.some(clientId),
      secret: Option.none(),
      assertion: Option.none()
    })
    return yield* exchangeCode(client, {
      code: Option.fromNullable(back.searchParams.get("code")),
      redirectUri: Option.some(redirectUri),
      codeVerifier: Option.some(verifier)
    })
  })

export const refreshWith = (clientId: string, token: Redacted.Redacted<string>) =>
  Effect.flatMap(
    authenticate({ clientId: Option.some(clientId), secret: Option.none(), assertion: Option.none() }),
    (client) => refresh(client, { refreshToken: Option.some(Redacted.value(token)), scope: Option.none() })
  )
