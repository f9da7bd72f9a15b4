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
import type { UpstreamProfile } from "../../../domain/UpstreamProfile.js"
import * as OAuthClient from "../OAuthClient.js"
import type { Credentials, ProviderEntry, Upstream } from "../ProviderEntry.js"
import * as UpstreamFailure from "../UpstreamFailure.js"

/** Any OpenID provider, found through `<issuer>/.well-known/openid-configuration`. */

const scope = "openid email profile"

const text = (value: unknown): Option.Option<string> =>
  typeof value === "string" && value !== "" ? Option.some(value) : Option.none()

// Some providers (older Cognito pools among them) send `email_verified` as a string.
const verified = (value: unknown): boolean => value === true || value === "true"

/** The profile, with `data` shaped like the identity data Supabase Auth keeps for OIDC logins. */
export const profileOf = (
  provider: string,
  issuer: string,
  subject: string,
  claims: Readonly<Record<string, unknown>>
): UpstreamProfile => {
  const email = text(claims.email)
  const emailVerified = Option.isSome(email) && verified(claims.email_verified)
  const name = text(claims.name)
  const picture = text(claims.picture)
  const optional = (key: string, value: Option.Option<string>) =>
    Option.match(value, { onNone: () => ({}), onSome: (present) => ({ [key]: present }) })
  return {
    provider,
    subject,
    email,
    emailVerified,
    data: {
      iss: issuer,
      sub: subject,
      provider_id: subject,
      ...optional("email", email),
      email_verified: emailVerified,
      ...optional("name", name),
      ...optional("full_name", name),
      ...optional("picture", picture),
      ...optional("avatar_url", picture)
    }
  }
}

/**
 * An upstream named `name` at `issuerUrl`. Google is this with a fixed issuer; the dev upstream
 * is this with a loopback one.
 */
export const make = (name: string, credentials: Credentials): Effect.Effect<Upstream, UpstreamLoginFailed> =>
  Effect.gen(function* () {
    const issuer = credentials.issuerUrl
    if (issuer === undefined) {
      return yield* new UpstreamLoginFailed({ message: `The ${name} provider needs an issuer URL` })
    }
    const transport = OAuthClient.transportOf(issuer)
    if (transport === "refused") {
      return yield* new UpstreamLoginFailed({
        message: `The ${name} provider's issuer must be https (plain http only on 127.0.0.1, [::1] or localhost): ${issuer.href}`
      })
    }
    const discover = Telemetry.fn("OidcProvider.discover")(
      () =>
        Effect.tryPromise({
          try: () =>
            client.discovery(
              issuer,
              credentials.clientId,
              Redacted.value(credentials.clientSecret),
              // The default of OpenID Connect Discovery when a provider lists no methods, and
              // what oidc-provider registers clients with unless told otherwise.
              client.ClientSecretBasic(),
              {
                timeout: OAuthClient.timeout,
                ...(transport === "loopback-http" ? { execute: [client.allowInsecureRequests] } : {})
              }
            ),
          catch: UpstreamFailure.failed(`Discovery of the ${name} provider at ${issuer.href} failed`)
        }),
      () => ({ "upstream.issuer": issuer.href })
    )()

    // Discovered once, on first use, then kept. A failure is not kept: the next login tries
    // again, so an upstream that was down at start-up does not need a restart of ours.
    // SynchronizedRef makes concurrent first logins wait for one discovery, not start several.
    const cache = yield* SynchronizedRef.make(Option.none<client.Configuration>())
    const configuration = SynchronizedRef.modifyEffect(cache, (cached) =>
      Option.match(cached, {
        onSome: (config) => Effect.succeed([config, cached] as const),
        onNone: () => Effect.map(discover, (config) => [config, Option.some(config)] as const)
      })
    )

    const userInfo = (config: client.Configuration, accessToken: string, subject: string) =>
      Effect.tryPromise({
        try: () => client.fetchUserInfo(config, accessToken, subject),
        catch: UpstreamFailure.failed(`Reading the profile from ${name} failed`)
      })

    const upstream: Upstream = {
      name,
      authorizationUrl: Telemetry.fn("OidcProvider.authorizationUrl")(
        (request: UpstreamRequest) =>
          Effect.flatMap(configuration, (config) =>
            OAuthClient.authorizationUrl(config, request, { scope, nonce: request.nonce })
          ),
        () => ({ "upstream.provider": name })
      ),
      exchange: Telemetry.fn("OidcProvider.exchange")(
        (callbackUrl: URL, request: UpstreamRequest) =>
          Effect.gen(function* () {
            const config = yield* configuration
            const tokens = yield* OAuthClient.codeGrant(
              config,
              callbackUrl,
              request,
              { expectedNonce: request.nonce },
              `Login at ${name} failed`
            )
            // openid-client has verified the ID token (signature, iss, aud, exp, nonce) by now;
            // with `expectedNonce` set it refuses a response without one, so this is a guard.
            const claims = tokens.claims()
            if (claims === undefined) {
              return yield* new UpstreamLoginFailed({ message: `Login at ${name} failed: no ID token` })
            }
            yield* Telemetry.annotate("upstream.subject", claims.sub)
            // Providers may keep the profile claims for the userinfo endpoint and out of the ID
            // token (oidc-provider does by default); ask there only when the email is missing.
            const extra =
              claims.email === undefined && config.serverMetadata().userinfo_endpoint !== undefined
                ? yield* userInfo(config, tokens.access_token, claims.sub)
                : {}
            return profileOf(name, config.serverMetadata().issuer, claims.sub, { ...extra, ...claims })
          }),
        () => ({ "upstream.provider": name })
      )
    }
    return upstream
  })

export const entry: ProviderEntry = {
  name: "oidc",
  build: (credentials) => make("oidc", credentials)
}
