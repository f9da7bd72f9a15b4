import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as OAuth1Client from "../../../adapters/idp/OAuth1Client.js"
import * as FakeProvider from "./FakeProvider.js"

/**
 * Twitter (OAuth 1.0a) as a local fake plays it: request token, access token and
 * verify_credentials, each answering only a request signed as Twitter checks it, and the profile
 * and identity data that must come out. The adapter test and the end-to-end test share it.
 */

export const consumerKey = "xvz1evFS4wEEPTGEFPHBog"
export const consumerSecret = "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"
export const requestToken = {
  key: "NPcudxy0yU5T3tBzho7iCotZ3cnetKwcTIRlX0iwRl0",
  secret: "veNRnAWe6inFuo8o2u8SLLZLjolYDmDP7SzL0YfYI"
}
export const accessToken = {
  key: "7588892-kagSNqWge8gB1WwE3plnFsJHAZVfxWD7Vb57p0b4",
  secret: "PbKfYqSryyeKDWz4ebtY3o5ogNLG11WJuZBc9fQrQo"
}
/** The `oauth_verifier` Twitter appends to our callback once the user authorized us. */
export const verifier = "verifier-1"

/** The parameters of an `Authorization: OAuth …` header. */
export const oauthParameters = (header: string | undefined): Map<string, string> =>
  new Map(
    [...(header ?? "").replace(/^OAuth /, "").matchAll(/([a-z_]+)="([^"]*)"/g)].map(
      ([, name = "", value = ""]) => [decodeURIComponent(name), decodeURIComponent(value)] as const
    )
  )

/**
 * Checks a request's signature as Twitter does, with the secret of the token it names: the
 * request-token secret for the access-token step proves it survived the redirect.
 */
export const signedWith = (request: FakeProvider.Recorded, origin: URL, tokenSecret: string): boolean => {
  const parameters = oauthParameters(request.headers.authorization)
  const claimed = parameters.get("oauth_signature")
  parameters.delete("oauth_signature")
  const url = new URL(request.path, origin)
  for (const [name, value] of request.query) url.searchParams.append(name, value)
  const expected = OAuth1Client.signature(
    request.method,
    url,
    [...parameters.entries(), ...(request.method === "POST" ? [...request.form.entries()] : [])],
    consumerSecret,
    tokenSecret
  )
  return claimed === expected
}

/** The person verify_credentials describes, as the auth service must record them. */
export const profile = {
  subject: "7588892",
  email: "kurrik@example.com",
  emailVerified: true,
  data: {
    iss: "https://api.twitter.com/1.1/account/verify_credentials.json",
    sub: "7588892",
    provider_id: "7588892",
    name: "Arne Kurrik",
    full_name: "Arne Kurrik",
    preferred_username: "kurrik",
    user_name: "kurrik",
    picture: "https://twitter.example/normal.png",
    avatar_url: "https://twitter.example/normal.png",
    email: "kurrik@example.com",
    email_verified: true,
    phone_verified: false
  }
} as const

/** Starts the fake with Twitter's three routes, refusing anything not signed for this consumer. */
export const start: Effect.Effect<FakeProvider.FakeProvider, never, Scope.Scope> = Effect.gen(function* () {
  const fake = yield* FakeProvider.start()
  fake.routes.set("POST /oauth/request_token", (request) =>
    signedWith(request, fake.origin, "")
      ? {
          text: `oauth_token=${requestToken.key}&oauth_token_secret=${requestToken.secret}&oauth_callback_confirmed=true`,
          contentType: "text/html"
        }
      : { status: 401, json: { errors: [{ code: 32, message: "Could not authenticate you." }] } }
  )
  fake.routes.set("POST /oauth/access_token", (request) =>
    signedWith(request, fake.origin, requestToken.secret) && request.form.get("oauth_verifier") === verifier
      ? {
          text: `oauth_token=${accessToken.key}&oauth_token_secret=${accessToken.secret}&user_id=7588892&screen_name=kurrik`,
          contentType: "text/html"
        }
      : { status: 401, text: "Invalid request token." }
  )
  fake.routes.set("GET /1.1/account/verify_credentials.json", (request) =>
    signedWith(request, fake.origin, accessToken.secret) && request.query.get("include_email") === "true"
      ? {
          json: {
            id: 7588892,
            id_str: "7588892",
            name: "Arne Kurrik",
            screen_name: "kurrik",
            profile_image_url_https: "https://twitter.example/normal.png",
            email: "kurrik@example.com"
          }
        }
      : { status: 401, json: { errors: [{ code: 89, message: "Invalid or expired token." }] } }
  )
  return fake
})
