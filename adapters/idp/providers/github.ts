import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
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

/**
 * GitHub is plain OAuth 2.0: no discovery, no ID token, so no nonce. Who logged in comes from
 * the REST API with the access token. A configured issuer URL is ignored.
 */

const scope = "read:user user:email"
const api = new URL("https://api.github.com/")

const server: client.ServerMetadata = {
  issuer: "https://github.com/login/oauth",
  authorization_endpoint: "https://github.com/login/oauth/authorize",
  token_endpoint: "https://github.com/login/oauth/access_token"
}

/** The fields of `GET /user` we keep; the rest is ignored. */
const User = Schema.Struct({
  id: Schema.Int,
  login: Schema.String,
  name: Schema.optional(Schema.NullOr(Schema.String)),
  avatar_url: Schema.optional(Schema.NullOr(Schema.String))
})

/** `GET /user/emails` (needs `user:email`); the primary address may be unverified. */
const Emails = Schema.Array(
  Schema.Struct({ email: Schema.String, primary: Schema.Boolean, verified: Schema.Boolean })
)

/** The profile, with `data` shaped like the identity data Supabase Auth keeps for GitHub logins. */
export const profileOf = (user: typeof User.Type, emails: typeof Emails.Type): UpstreamProfile => {
  const subject = String(user.id)
  // Only an address GitHub verified stands for the user: an unverified one may be anybody's.
  const email = Option.map(
    Option.fromNullable(emails.find((entry) => entry.primary && entry.verified)),
    (entry) => entry.email
  )
  const name = Option.fromNullable(user.name)
  const avatar = Option.fromNullable(user.avatar_url)
  const optional = (key: string, value: Option.Option<string>) =>
    Option.match(value, { onNone: () => ({}), onSome: (present) => ({ [key]: present }) })
  return {
    provider: "github",
    subject,
    email,
    emailVerified: Option.isSome(email),
    data: {
      iss: api.href,
      sub: subject,
      provider_id: subject,
      user_name: user.login,
      preferred_username: user.login,
      ...optional("email", email),
      email_verified: Option.isSome(email),
      ...optional("name", name),
      ...optional("full_name", name),
      ...optional("avatar_url", avatar)
    }
  }
}

export const make = (credentials: Credentials): Upstream => {
  // GitHub documents client_id and client_secret as body parameters of the token request.
  const config = new client.Configuration(
    server,
    credentials.clientId,
    Redacted.value(credentials.clientSecret),
    client.ClientSecretPost()
  )
  config.timeout = OAuthClient.timeout

  const get = <A, I>(accessToken: string, path: string, schema: Schema.Schema<A, I>) => {
    const url = new URL(path, api)
    const context = `Reading ${url.pathname} from GitHub failed`
    const read = () =>
      Effect.tryPromise({
        try: async () => {
          const response = await client.fetchProtectedResource(
            config,
            accessToken,
            url,
            "GET",
            undefined,
            new Headers({ accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28" })
          )
          if (!response.ok) {
            await response.body?.cancel()
            throw new UpstreamLoginFailed({ message: `${context}: HTTP ${response.status}` })
          }
          return response.json()
        },
        catch: (cause) =>
          cause instanceof UpstreamLoginFailed ? cause : UpstreamFailure.failed(context)(cause)
      }).pipe(
        Effect.flatMap((body) =>
          Effect.mapError(
            Schema.decodeUnknown(schema)(body),
            () => new UpstreamLoginFailed({ message: `${context}: unexpected response` })
          )
        )
      )
    return Telemetry.fn("GitHubProvider.get")(read, () => ({ "http.url": url.href }))()
  }

  return {
    name: "github",
    authorizationUrl: Telemetry.fn("GitHubProvider.authorizationUrl")((request: UpstreamRequest) =>
      OAuthClient.authorizationUrl(config, request, { scope })
    ),
    exchange: Telemetry.fn("GitHubProvider.exchange")((callbackUrl: URL, request: UpstreamRequest) =>
      Effect.gen(function* () {
        const tokens = yield* OAuthClient.codeGrant(
          config,
          callbackUrl,
          request,
          {},
          "Login at github failed"
        )
        const [user, emails] = yield* Effect.all(
          [get(tokens.access_token, "/user", User), get(tokens.access_token, "/user/emails", Emails)],
          { concurrency: 2 }
        )
        yield* Telemetry.annotate("upstream.subject", String(user.id))
        return profileOf(user, emails)
      })
    )
  }
}

export const entry: ProviderEntry = {
  name: "github",
  build: (credentials) => Effect.sync(() => make(credentials))
}
