import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as client from "openid-client"
import {
  UpstreamLoginFailed,
  type UpstreamRequest
} from "../../../application/ports/UpstreamIdentityProvider.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as IdentityData from "../IdentityData.js"
import * as OAuthClient from "../OAuthClient.js"
import type { Credentials, ProviderEntry, ProviderTraits, Upstream } from "../ProviderEntry.js"
import * as UpstreamFailure from "../UpstreamFailure.js"

/**
 * OpenID providers: the code is redeemed through openid-client, which checks the ID token the
 * token endpoint returns (issuer, audience, expiry, nonce). The provider is found either through
 * `<issuer>/.well-known/openid-configuration` (any OpenID provider, Azure's tenants) or at
 * endpoints its documentation fixes (Google, Apple, LinkedIn, Slack, a Keycloak realm).
 *
 * The ID token comes straight from the token endpoint over TLS, so its signature is not checked
 * again (OpenID Connect Core §3.1.3.7, 6.).
 */

/** Who logged in, as a provider's mapping sees it. */
export interface Login {
  /** The issuer the ID token was checked against. */
  readonly issuer: string
  readonly subject: string
  /** The ID token's claims, with the userinfo endpoint's where the spec asks for them. */
  readonly claims: Readonly<Record<string, unknown>>
  /** The userinfo endpoint's answer alone, where it was asked. */
  readonly userInfo: Option.Option<Readonly<Record<string, unknown>>>
  /** The callback as the browser brought it (Apple's `user` field rides in it). */
  readonly callbackUrl: URL
}

export interface Spec {
  readonly name: string
  readonly scopes: ReadonlyArray<string>
  readonly pkce: boolean
  /** Without it the provider's ID token is still checked, with no nonce in it. */
  readonly nonce: boolean
  readonly clientAuthentication: OAuthClient.ClientAuthentication
  readonly parameters?: Readonly<Record<string, string>>
  /**
   * When to ask the userinfo endpoint: `when-email-missing` for providers that keep profile
   * claims out of the ID token, `always` where the identity data is the userinfo answer.
   */
  readonly userInfo: "never" | "when-email-missing" | "always"
  readonly profile: (login: Login) => Effect.Effect<IdentityData.ProviderProfile, UpstreamLoginFailed>
}

/** Where the provider's metadata comes from. */
export type Server =
  | { readonly _tag: "Discovered"; readonly issuer: URL }
  | { readonly _tag: "Fixed"; readonly metadata: client.ServerMetadata }

const scope = ["openid", "email", "profile"]

/** The profile of any OpenID provider, with `data` shaped like Supabase Auth's for OIDC logins. */
export const standardProfile = (provider: string) => (login: Login) => {
  const { claims } = login
  const email = IdentityData.text(claims.email)
  const name = IdentityData.text(claims.name)
  const picture = IdentityData.text(claims.picture)
  return IdentityData.profileOf(
    provider,
    {
      iss: login.issuer,
      sub: login.subject,
      name,
      full_name: name,
      picture,
      avatar_url: picture
    },
    IdentityData.single(email, IdentityData.truthy(claims.email_verified))
  )
}

const discover = (
  name: string,
  issuer: URL,
  credentials: Credentials,
  authentication: OAuthClient.ClientAuthentication
) =>
  Effect.gen(function* () {
    const transport = yield* OAuthClient.checkTransport(name, "issuer", issuer)
    return Telemetry.fn("OidcProvider.discover")(
      () =>
        Effect.tryPromise({
          try: () =>
            client.discovery(
              issuer,
              credentials.clientId,
              Redacted.value(credentials.clientSecret),
              OAuthClient.clientAuthentication(
                authentication,
                credentials.clientId,
                Redacted.value(credentials.clientSecret)
              ),
              {
                timeout: OAuthClient.timeout,
                // The discovered Configuration keeps it: keys, tokens and user info go through the guard too.
                [client.customFetch]: OAuthClient.guardedFetch(credentials),
                ...(transport === "plain-http" ? { execute: [client.allowInsecureRequests] } : {})
              }
            ),
          catch: UpstreamFailure.failed(`Discovery of the ${name} provider at ${issuer.href} failed`)
        }),
      () => ({ "upstream.issuer": issuer.href })
    )()
  })

const relocatable = ["authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri"] as const

const fixed = (
  name: string,
  metadata: client.ServerMetadata,
  credentials: Credentials,
  authentication: OAuthClient.ClientAuthentication
) => {
  // The issuer is a name, not an address: a local fake of the provider speaks in its name.
  const moved: Record<string, string> = {}
  for (const key of relocatable) {
    const endpoint = metadata[key]
    if (endpoint !== undefined) moved[key] = OAuthClient.relocate(endpoint, credentials.endpointOrigin).href
  }
  return OAuthClient.configuration(name, { ...metadata, ...moved }, credentials, authentication)
}

/** An OpenID provider as `spec` describes it, at `server`. */
export const openId = (
  spec: Spec,
  server: Server,
  credentials: Credentials
): Effect.Effect<Upstream, UpstreamLoginFailed> =>
  Effect.gen(function* () {
    const { name } = spec
    // Fixed endpoints are checked now; a discovered provider is asked on first use.
    const load: Effect.Effect<client.Configuration, UpstreamLoginFailed> =
      server._tag === "Fixed"
        ? Effect.succeed(yield* fixed(name, server.metadata, credentials, spec.clientAuthentication))
        : yield* discover(
            name,
            OAuthClient.relocate(server.issuer, credentials.endpointOrigin),
            credentials,
            spec.clientAuthentication
          )

    // Loaded once, on first use, then kept. A failure is not kept: the next login tries again,
    // so an upstream that was down at start-up does not need a restart of ours.
    // SynchronizedRef makes concurrent first logins wait for one discovery, not start several.
    const cache = yield* SynchronizedRef.make(Option.none<client.Configuration>())
    const configuration = SynchronizedRef.modifyEffect(cache, (cached) =>
      Option.match(cached, {
        onSome: (config) => Effect.succeed([config, cached] as const),
        onNone: () => Effect.map(load, (config) => [config, Option.some(config)] as const)
      })
    )

    const userInfo = (config: client.Configuration, accessToken: string, subject: string) =>
      Effect.tryPromise({
        try: () => client.fetchUserInfo(config, accessToken, subject),
        catch: UpstreamFailure.failed(`Reading the profile from ${name} failed`)
      })

    const attributes = () => ({ "upstream.provider": name })
    const upstream: Upstream = {
      name,
      authorizationUrl: Telemetry.fn("OidcProvider.authorizationUrl")(
        (request: UpstreamRequest) =>
          Effect.flatMap(configuration, (config) =>
            OAuthClient.authorizationUrl(config, request, {
              scope: spec.scopes,
              pkce: spec.pkce,
              nonce: spec.nonce,
              ...(spec.parameters === undefined ? {} : { parameters: spec.parameters })
            })
          ),
        attributes
      ),
      exchange: Telemetry.fn("OidcProvider.exchange")(
        (callbackUrl: URL, request: UpstreamRequest) =>
          Effect.gen(function* () {
            const config = yield* configuration
            const tokens = yield* OAuthClient.codeGrant(
              config,
              callbackUrl,
              request,
              { pkce: spec.pkce, expectedNonce: spec.nonce ? request.nonce : undefined },
              `Login at ${name} failed`
            )
            // openid-client has checked the ID token (iss, aud, exp, nonce) by now; with
            // `expectedNonce` set it refuses a response without one, so this is a guard.
            const claims = tokens.claims()
            if (claims === undefined) {
              return yield* new UpstreamLoginFailed({ message: `Login at ${name} failed: no ID token` })
            }
            yield* Telemetry.annotate("upstream.subject", claims.sub)
            const ask =
              config.serverMetadata().userinfo_endpoint !== undefined &&
              (spec.userInfo === "always" ||
                (spec.userInfo === "when-email-missing" && claims.email === undefined))
            const info = ask
              ? Option.some(yield* userInfo(config, tokens.access_token, claims.sub))
              : Option.none()
            const profile = yield* spec.profile({
              issuer: config.serverMetadata().issuer,
              subject: claims.sub,
              claims: { ...Option.getOrElse(info, () => ({})), ...claims },
              userInfo: info,
              callbackUrl
            })
            return { ...profile, tokens: OAuthClient.providerTokens(tokens) }
          }),
        attributes
      )
    }
    return upstream
  })

/**
 * Any OpenID provider at `issuerUrl`, under `name`. The `oidc` provider is this; the dev
 * upstream is this with a loopback issuer.
 */
export const make = (
  name: string,
  credentials: Credentials
): Effect.Effect<Upstream, UpstreamLoginFailed> => {
  const issuer = credentials.issuerUrl
  if (issuer === undefined) {
    return Effect.fail(new UpstreamLoginFailed({ message: `The ${name} provider needs an issuer URL` }))
  }
  return openId(
    {
      name,
      scopes: scope,
      pkce: true,
      nonce: true,
      // The default of OpenID Connect Discovery when a provider lists no methods, and what
      // oidc-provider registers clients with unless told otherwise.
      clientAuthentication: "client_secret_basic",
      // Providers may keep the profile claims for the userinfo endpoint and out of the ID token
      // (oidc-provider does by default); ask there only when the email is missing.
      userInfo: "when-email-missing",
      profile: standardProfile(name)
    },
    { _tag: "Discovered", issuer },
    credentials
  )
}

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: true,
  nonce: true,
  url: "required",
  parameters: { login_hint: "login_hint", prompt: "prompt" }
}

export const entry: ProviderEntry = {
  name: "oidc",
  traits,
  build: (credentials) => make("oidc", credentials)
}
