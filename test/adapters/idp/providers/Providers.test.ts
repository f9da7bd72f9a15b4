import { createHash, createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { generateKeyPair, SignJWT } from "jose"
import * as client from "openid-client"
import * as ProviderCatalog from "../../../../adapters/idp/ProviderCatalog.js"
import type { Credentials } from "../../../../adapters/idp/ProviderEntry.js"
import {
  UpstreamLoginFailed,
  type UpstreamRequest
} from "../../../../application/ports/UpstreamIdentityProvider.js"
import * as FakeProvider from "../../../support/idp/FakeProvider.js"

/**
 * Every OAuth 2.0 provider of the catalog against a local fake of it: the authorization URL it
 * builds, the token request it sends, the API calls it makes, and the profile, identity data
 * and provider tokens that come out. Twitter (OAuth 1.0a) has its own file.
 */

const clientId = "client-123"
const clientSecret = "secret-456"
const redirectUri = "https://auth.example.com/callback"
const extraScope = "extra:scope"

const newRequest = (parameters?: Readonly<Record<string, string>>): UpstreamRequest => ({
  state: client.randomState(),
  nonce: client.randomNonce(),
  codeVerifier: client.randomPKCECodeVerifier(),
  redirectUri,
  extraScopes: [extraScope],
  ...(parameters === undefined ? {} : { parameters })
})

/** Apple's client secret: a JWT signed (ES256) with the team's key, for the services id. */
const appleSecret = Effect.promise(async () => {
  const { privateKey } = await generateKeyPair("ES256")
  return new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: "KEY123" })
    .setIssuer("TEAM123")
    .setSubject(clientId)
    .setAudience("https://appleid.apple.com")
    .setIssuedAt()
    .setExpirationTime("180d")
    .sign(privateKey)
})

interface Flow {
  readonly fake: FakeProvider.FakeProvider
  /** The authorization URL the provider built, once built. */
  readonly authorization: () => URL
}

interface Case {
  readonly name: ProviderCatalog.ExternalProviderName
  readonly credentials?: (fake: FakeProvider.FakeProvider) => Partial<Credentials>
  readonly authorize: string
  readonly scope: string
  readonly token: string
  readonly auth: "basic" | "post"
  /** The token response beyond access and refresh token (an ID token, WorkOS's profile…). */
  readonly tokenReply?: (flow: Flow) => Promise<Record<string, unknown>>
  readonly routes?: (flow: Flow) => Readonly<Record<string, FakeProvider.Route>>
  readonly parameters?: Readonly<Record<string, string>>
  readonly callback?: Readonly<Record<string, string>>
  /** The parameters the authorization URL must carry beyond the standard ones. */
  readonly sentParameters?: Readonly<Record<string, string>>
  readonly subject: string
  readonly email: string | undefined
  readonly emailVerified: boolean
  readonly data: (fake: FakeProvider.FakeProvider) => Record<string, unknown>
}

/** An ID token as the provider issues it, bound to the nonce of the authorization URL if any. */
const idToken = (flow: Flow, issuer: string, claims: Record<string, unknown>) => {
  const nonce = flow.authorization().searchParams.get("nonce")
  return flow.fake.idToken({ iss: issuer, aud: clientId, ...claims, ...(nonce === null ? {} : { nonce }) })
}

const json =
  (body: unknown): FakeProvider.Route =>
  () => ({ json: body })

const cases: ReadonlyArray<Case> = [
  {
    name: "apple",
    authorize: "/auth/authorize",
    scope: "name email",
    token: "/auth/token",
    auth: "post",
    sentParameters: { response_mode: "form_post" },
    tokenReply: async (flow) => ({
      id_token: await idToken(flow, "https://appleid.apple.com", {
        sub: "001234.apple",
        email: "x1y2@privaterelay.appleid.com",
        email_verified: "true",
        is_private_email: "true",
        auth_time: 1700000000
      })
    }),
    // The first sign-in's form field, merged into the callback's query by the auth service.
    callback: {
      user: JSON.stringify({
        name: { firstName: "Ap", lastName: "Ple" },
        email: "x1y2@privaterelay.appleid.com"
      })
    },
    subject: "001234.apple",
    email: "x1y2@privaterelay.appleid.com",
    emailVerified: true,
    data: () => ({
      iss: "https://appleid.apple.com",
      sub: "001234.apple",
      provider_id: "001234.apple",
      name: "Ap Ple",
      full_name: "Ap Ple",
      custom_claims: { is_private_email: true, auth_time: 1700000000 },
      email: "x1y2@privaterelay.appleid.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "azure",
    credentials: (fake) => ({ issuerUrl: new URL("/common", fake.origin) }),
    authorize: "/common/oauth2/v2.0/authorize",
    scope: "openid email profile",
    token: "/common/oauth2/v2.0/token",
    auth: "post",
    routes: (flow) => ({
      "GET /common/v2.0/.well-known/openid-configuration": () => ({
        json: {
          issuer: `${flow.fake.origin.origin}/common/v2.0`,
          authorization_endpoint: `${flow.fake.origin.origin}/common/oauth2/v2.0/authorize`,
          token_endpoint: `${flow.fake.origin.origin}/common/oauth2/v2.0/token`,
          jwks_uri: `${flow.fake.origin.origin}/common/discovery/v2.0/keys`,
          response_types_supported: ["code"],
          subject_types_supported: ["pairwise"],
          id_token_signing_alg_values_supported: ["RS256"]
        }
      })
    }),
    tokenReply: async (flow) => ({
      id_token: await idToken(flow, `${flow.fake.origin.origin}/common/v2.0`, {
        sub: "az-pairwise-sub",
        oid: "00000000-0000-0000-66f3-3332eca7ea81",
        tid: "9122040d-6c67-4c5b-b112-36a304b66dad",
        name: "Az Ure",
        preferred_username: "az@contoso.example",
        email: "az@contoso.example",
        // The domain owner did not verify the address: it is not taken as verified.
        xms_edov: false
      })
    }),
    subject: "az-pairwise-sub",
    email: "az@contoso.example",
    emailVerified: false,
    data: (fake) => ({
      iss: `${fake.origin.origin}/common/v2.0`,
      sub: "az-pairwise-sub",
      provider_id: "az-pairwise-sub",
      preferred_username: "az@contoso.example",
      full_name: "Az Ure",
      custom_claims: {
        oid: "00000000-0000-0000-66f3-3332eca7ea81",
        tid: "9122040d-6c67-4c5b-b112-36a304b66dad",
        email: "az@contoso.example",
        xms_edov: false
      },
      email: "az@contoso.example",
      email_verified: false,
      phone_verified: false
    })
  },
  {
    name: "bitbucket",
    authorize: "/site/oauth2/authorize",
    scope: "account email",
    token: "/site/oauth2/access_token",
    auth: "basic",
    routes: () => ({
      "GET /2.0/user": json({
        uuid: "{c1f0c3f6-0000-4d1f-9d3b-2b3c4d5e6f70}",
        display_name: "Bit Bucket",
        links: { avatar: { href: "https://bitbucket.example/avatar.png" } }
      }),
      "GET /2.0/user/emails": json({
        values: [
          { email: "old@example.com", is_primary: false, is_confirmed: true },
          { email: "bit@example.com", is_primary: true, is_confirmed: true }
        ]
      })
    }),
    subject: "{c1f0c3f6-0000-4d1f-9d3b-2b3c4d5e6f70}",
    email: "bit@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://api.bitbucket.org/2.0",
      sub: "{c1f0c3f6-0000-4d1f-9d3b-2b3c4d5e6f70}",
      provider_id: "{c1f0c3f6-0000-4d1f-9d3b-2b3c4d5e6f70}",
      name: "Bit Bucket",
      full_name: "Bit Bucket",
      picture: "https://bitbucket.example/avatar.png",
      avatar_url: "https://bitbucket.example/avatar.png",
      email: "bit@example.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "discord",
    authorize: "/api/oauth2/authorize",
    scope: "identify email",
    token: "/api/oauth2/token",
    auth: "basic",
    routes: () => ({
      "GET /api/users/@me": json({
        id: "80351110224678912",
        username: "nelly",
        discriminator: "1337",
        global_name: "Nelly",
        avatar: "8342729096ea3675442027381ff50dfe",
        email: "nelly@example.com",
        verified: true
      })
    }),
    subject: "80351110224678912",
    email: "nelly@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://discord.com/api",
      sub: "80351110224678912",
      provider_id: "80351110224678912",
      name: "nelly#1337",
      full_name: "nelly",
      picture: "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
      avatar_url: "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
      custom_claims: { global_name: "Nelly" },
      email: "nelly@example.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "facebook",
    authorize: "/dialog/oauth",
    scope: "email public_profile",
    token: "/oauth/access_token",
    auth: "post",
    routes: () => ({
      "GET /me": (request) =>
        request.query.get("appsecret_proof") ===
        createHmac("sha256", clientSecret).update("access-facebook").digest("hex")
          ? {
              json: {
                id: "10158000000000001",
                email: "face@example.com",
                first_name: "Face",
                last_name: "Book",
                name: "Facey",
                picture: { data: { url: "https://facebook.example/p.jpg" } }
              }
            }
          : {
              status: 400,
              json: { error: { message: "Invalid appsecret_proof", type: "GraphMethodException", code: 100 } }
            }
    }),
    subject: "10158000000000001",
    email: "face@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://graph.facebook.com/me?fields=email,first_name,last_name,name,picture",
      sub: "10158000000000001",
      provider_id: "10158000000000001",
      name: "Face Book",
      full_name: "Face Book",
      nickname: "Facey",
      slug: "Facey",
      picture: "https://facebook.example/p.jpg",
      avatar_url: "https://facebook.example/p.jpg",
      email: "face@example.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "figma",
    authorize: "/oauth",
    scope: "current_user:read",
    token: "/v1/oauth/token",
    auth: "basic",
    // Figma's token response names no token_type.
    tokenReply: async () => ({ token_type: undefined, user_id: "fig-1", expires_in: 7776000 }),
    routes: () => ({
      "GET /v1/me": json({
        id: "fig-1",
        email: "fig@example.com",
        handle: "Fig Ma",
        img_url: "https://figma.example/i.png"
      })
    }),
    subject: "fig-1",
    email: "fig@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://api.figma.com",
      sub: "fig-1",
      provider_id: "fig-1",
      name: "Fig Ma",
      full_name: "Fig Ma",
      avatar_url: "https://figma.example/i.png",
      email: "fig@example.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "github",
    authorize: "/login/oauth/authorize",
    scope: "read:user user:email",
    token: "/login/oauth/access_token",
    auth: "post",
    routes: () => ({
      "GET /user": json({
        id: 583231,
        login: "octocat",
        name: "The Octocat",
        avatar_url: "https://github.example/o.png"
      }),
      "GET /user/emails": json([
        { email: "old@example.com", primary: false, verified: true },
        { email: "octocat@example.com", primary: true, verified: true }
      ])
    }),
    subject: "583231",
    email: "octocat@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://api.github.com",
      sub: "583231",
      provider_id: "583231",
      name: "The Octocat",
      full_name: "The Octocat",
      preferred_username: "octocat",
      user_name: "octocat",
      avatar_url: "https://github.example/o.png",
      email: "octocat@example.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "gitlab",
    // A self-managed instance: EXTERNAL_GITLAB_URL, used as it is.
    credentials: (fake) => ({ issuerUrl: new URL("/", fake.origin) }),
    authorize: "/oauth/authorize",
    scope: "read_user",
    token: "/oauth/token",
    auth: "post",
    routes: () => ({
      "GET /api/v4/user": json({
        id: 42,
        name: "Gita Lab",
        email: "gita@example.com",
        avatar_url: "https://gitlab.example/a.png",
        confirmed_at: null
      }),
      "GET /api/v4/user/emails": json([{ id: 7, email: "other@example.com" }])
    }),
    // Not confirmed at GitLab: recorded, not verified.
    subject: "42",
    email: "gita@example.com",
    emailVerified: false,
    data: (fake) => ({
      iss: fake.origin.origin,
      sub: "42",
      provider_id: "42",
      name: "Gita Lab",
      full_name: "Gita Lab",
      picture: "https://gitlab.example/a.png",
      avatar_url: "https://gitlab.example/a.png",
      email: "gita@example.com",
      email_verified: false,
      phone_verified: false
    })
  },
  {
    name: "google",
    authorize: "/o/oauth2/v2/auth",
    scope: "openid email profile",
    token: "/token",
    auth: "post",
    parameters: { access_type: "offline", prompt: "consent" },
    sentParameters: { access_type: "offline", prompt: "consent" },
    tokenReply: async (flow) => ({
      id_token: await idToken(flow, "https://accounts.google.com", {
        sub: "109876543210",
        email: "goo@example.com",
        email_verified: true,
        name: "Goo Gle",
        picture: "https://google.example/p.png",
        hd: "example.com"
      })
    }),
    subject: "109876543210",
    email: "goo@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://accounts.google.com",
      sub: "109876543210",
      provider_id: "109876543210",
      name: "Goo Gle",
      full_name: "Goo Gle",
      picture: "https://google.example/p.png",
      avatar_url: "https://google.example/p.png",
      custom_claims: { hd: "example.com" },
      email: "goo@example.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "keycloak",
    credentials: (fake) => ({ issuerUrl: new URL("/realms/acme/", fake.origin) }),
    authorize: "/realms/acme/protocol/openid-connect/auth",
    scope: "openid profile email",
    token: "/realms/acme/protocol/openid-connect/token",
    auth: "basic",
    tokenReply: async (flow) => ({
      id_token: await idToken(flow, `${flow.fake.origin.origin}/realms/acme`, { sub: "kc-7f3a" })
    }),
    routes: () => ({
      "GET /realms/acme/protocol/openid-connect/userinfo": json({
        sub: "kc-7f3a",
        name: "Key Cloak",
        email: "kc@example.com",
        email_verified: true,
        preferred_username: "kcuser",
        groups: ["admins"]
      })
    }),
    subject: "kc-7f3a",
    email: "kc@example.com",
    emailVerified: true,
    data: (fake) => ({
      iss: `${fake.origin.origin}/realms/acme`,
      sub: "kc-7f3a",
      provider_id: "kc-7f3a",
      name: "Key Cloak",
      full_name: "Key Cloak",
      custom_claims: { preferred_username: "kcuser", groups: ["admins"] },
      email: "kc@example.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "linkedin",
    authorize: "/oauth/v2/authorization",
    scope: "openid profile email",
    token: "/oauth/v2/accessToken",
    auth: "post",
    tokenReply: async (flow) => ({
      id_token: await idToken(flow, "https://www.linkedin.com/oauth", {
        sub: "li-782bbtaQ",
        email: "linked@example.com",
        email_verified: "true",
        given_name: "Linked",
        family_name: "In",
        locale: "en_US",
        picture: "https://linkedin.example/p.jpg"
      })
    }),
    subject: "li-782bbtaQ",
    email: "linked@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://www.linkedin.com/oauth",
      sub: "li-782bbtaQ",
      provider_id: "li-782bbtaQ",
      name: "Linked In",
      given_name: "Linked",
      family_name: "In",
      locale: "en_US",
      picture: "https://linkedin.example/p.jpg",
      email: "linked@example.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "notion",
    authorize: "/v1/oauth/authorize",
    scope: "",
    token: "/v1/oauth/token",
    auth: "basic",
    sentParameters: { owner: "user" },
    routes: () => ({
      "GET /v1/users/me": (request) =>
        request.headers["notion-version"] === "2021-08-16"
          ? {
              json: {
                object: "user",
                id: "bot-1",
                type: "bot",
                bot: {
                  owner: {
                    type: "user",
                    user: {
                      object: "user",
                      id: "nu-1",
                      name: "No Tion",
                      avatar_url: "https://notion.example/a.png",
                      type: "person",
                      person: { email: "notion@example.com" }
                    }
                  }
                }
              }
            }
          : { status: 400, json: { object: "error", code: "missing_version" } }
    }),
    subject: "nu-1",
    email: "notion@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://api.notion.com",
      sub: "nu-1",
      provider_id: "nu-1",
      name: "No Tion",
      full_name: "No Tion",
      picture: "https://notion.example/a.png",
      avatar_url: "https://notion.example/a.png",
      email: "notion@example.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "slack",
    authorize: "/openid/connect/authorize",
    scope: "openid profile email",
    token: "/api/openid.connect.token",
    auth: "post",
    tokenReply: async (flow) => ({
      ok: true,
      token_type: "Bearer",
      id_token: await idToken(flow, "https://slack.com", {
        sub: "U0R7JM",
        "https://slack.com/user_id": "U0R7JM",
        "https://slack.com/team_id": "T0R7GR",
        email: "slack@example.com",
        email_verified: true,
        name: "Sla Ck",
        picture: "https://slack.example/p.png"
      })
    }),
    subject: "U0R7JM",
    email: "slack@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://slack.com/api",
      sub: "U0R7JM",
      provider_id: "U0R7JM",
      name: "Sla Ck",
      full_name: "Sla Ck",
      picture: "https://slack.example/p.png",
      avatar_url: "https://slack.example/p.png",
      custom_claims: { "https://slack.com/team_id": "T0R7GR" },
      email: "slack@example.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "snapchat",
    authorize: "/accounts/oauth2/auth",
    scope:
      "https://auth.snapchat.com/oauth2/api/user.external_id https://auth.snapchat.com/oauth2/api/user.display_name https://auth.snapchat.com/oauth2/api/user.bitmoji.avatar",
    token: "/accounts/oauth2/token",
    auth: "basic",
    // Snapchat shares no address here: the login goes on without one.
    routes: () => ({
      "GET /v1/me": json({
        data: {
          me: {
            externalId: "snap-ext-1",
            displayName: "Snappy",
            bitmoji: { avatar: "https://snap.example/b.png" }
          }
        }
      })
    }),
    subject: "snap-ext-1",
    email: undefined,
    emailVerified: false,
    data: () => ({
      iss: "https://accounts.snapchat.com/accounts/oauth2/token",
      sub: "snap-ext-1",
      provider_id: "snap-ext-1",
      name: "Snappy",
      full_name: "Snappy",
      slug: "Snappy",
      picture: "https://snap.example/b.png",
      avatar_url: "https://snap.example/b.png",
      email_verified: false,
      phone_verified: false
    })
  },
  {
    name: "spotify",
    authorize: "/authorize",
    scope: "user-read-email user-read-private",
    token: "/api/token",
    auth: "basic",
    routes: () => ({
      "GET /v1/me": json({
        id: "spot-1",
        display_name: "Spo Tify",
        email: "spot@example.com",
        images: [
          { url: "https://spotify.example/small.png", height: 64, width: 64 },
          { url: "https://spotify.example/large.png", height: 300, width: 300 }
        ]
      })
    }),
    // Spotify never says whether the address is verified.
    subject: "spot-1",
    email: "spot@example.com",
    emailVerified: false,
    data: () => ({
      iss: "https://api.spotify.com/v1",
      sub: "spot-1",
      provider_id: "spot-1",
      name: "Spo Tify",
      full_name: "Spo Tify",
      picture: "https://spotify.example/large.png",
      avatar_url: "https://spotify.example/large.png",
      email: "spot@example.com",
      email_verified: false,
      phone_verified: false
    })
  },
  {
    name: "twitch",
    authorize: "/oauth2/authorize",
    scope: "user:read:email",
    token: "/oauth2/token",
    auth: "post",
    // Twitch lists granted scopes as an array.
    tokenReply: async () => ({ scope: ["user:read:email"], expires_in: 14124 }),
    routes: () => ({
      "GET /helix/users": (request) =>
        request.headers["client-id"] === clientId
          ? {
              json: {
                data: [
                  {
                    id: "141981764",
                    login: "twitchdev",
                    display_name: "TwitchDev",
                    type: "",
                    broadcaster_type: "partner",
                    description: "Supporting third-party developers",
                    profile_image_url: "https://twitch.example/p.png",
                    offline_image_url: "https://twitch.example/o.png",
                    view_count: 5980557,
                    email: "twitch@example.com",
                    created_at: "2016-12-14T20:32:28Z"
                  }
                ]
              }
            }
          : { status: 401, json: { error: "Unauthorized", status: 401, message: "Client ID is missing" } }
    }),
    subject: "141981764",
    email: "twitch@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://api.twitch.tv",
      sub: "141981764",
      provider_id: "141981764",
      name: "twitchdev",
      full_name: "twitchdev",
      nickname: "TwitchDev",
      slug: "TwitchDev",
      picture: "https://twitch.example/p.png",
      avatar_url: "https://twitch.example/p.png",
      custom_claims: {
        broadcaster_type: "partner",
        description: "Supporting third-party developers",
        type: "",
        offline_image_url: "https://twitch.example/o.png",
        view_count: 5980557
      },
      email: "twitch@example.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "workos",
    authorize: "/sso/authorize",
    scope: "",
    token: "/sso/token",
    auth: "post",
    parameters: { organization: "org_01EHZNVPK3SFK441A1RGBFSHRT", provider: "GoogleOAuth" },
    sentParameters: { organization: "org_01EHZNVPK3SFK441A1RGBFSHRT", provider: "GoogleOAuth" },
    // WorkOS's token response carries the profile, and no token_type.
    tokenReply: async () => ({
      token_type: undefined,
      refresh_token: undefined,
      profile: {
        object: "profile",
        id: "prof_01DMC79VCBZ0NY2099737PSVF1",
        connection_id: "conn_01E4ZCR3C56J083X43JQXF3JK5",
        organization_id: "org_01EHZNVPK3SFK441A1RGBFSHRT",
        connection_type: "GoogleOAuth",
        email: "todd@example.com",
        first_name: "Todd",
        last_name: "Rundgren",
        idp_id: "00u1a0ufowBJlzPlk357"
      }
    }),
    subject: "prof_01DMC79VCBZ0NY2099737PSVF1",
    email: "todd@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://api.workos.com",
      sub: "prof_01DMC79VCBZ0NY2099737PSVF1",
      provider_id: "prof_01DMC79VCBZ0NY2099737PSVF1",
      name: "Todd Rundgren",
      full_name: "Todd Rundgren",
      custom_claims: {
        connection_id: "conn_01E4ZCR3C56J083X43JQXF3JK5",
        organization_id: "org_01EHZNVPK3SFK441A1RGBFSHRT"
      },
      email: "todd@example.com",
      email_verified: true,
      phone_verified: false
    })
  }
]

// As Supabase Auth's client sends it: `-` is not escaped, which providers that do not unescape need.
const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`

const credentialsFor = (testCase: Case, fake: FakeProvider.FakeProvider) =>
  Effect.map(testCase.name === "apple" ? appleSecret : Effect.succeed(clientSecret), (secret) => ({
    clientId,
    clientSecret: Redacted.make(secret),
    endpointOrigin: fake.origin,
    allowedLoopback: [fake.origin.host],
    ...testCase.credentials?.(fake)
  }))

/** Starts the fake with the case's routes and a token endpoint answering as the provider does. */
const fakeFor = (testCase: Case, tokenRoute?: FakeProvider.Route) =>
  Effect.gen(function* () {
    const fake = yield* FakeProvider.start()
    let authorization: URL | undefined
    const flow: Flow = {
      fake,
      authorization: () => {
        if (authorization === undefined) throw new Error("no authorization URL yet")
        return authorization
      }
    }
    for (const [route, answer] of Object.entries(testCase.routes?.(flow) ?? {}))
      fake.routes.set(route, answer)
    fake.routes.set(
      `POST ${testCase.token}`,
      tokenRoute ??
        (async () => ({
          json: {
            access_token: `access-${testCase.name}`,
            token_type: "bearer",
            refresh_token: `refresh-${testCase.name}`,
            ...(await testCase.tokenReply?.(flow))
          }
        }))
    )
    return { fake, flow, setAuthorization: (url: URL) => (authorization = url) }
  })

describe("external providers against a local fake", () => {
  for (const testCase of cases) {
    it.scoped(`${testCase.name}: authorization URL, code exchange, profile, identity data, tokens`, () =>
      Effect.gen(function* () {
        const { fake, setAuthorization } = yield* fakeFor(testCase)
        const traits = ProviderCatalog.traits(testCase.name)
        const upstream = yield* ProviderCatalog.build(testCase.name, yield* credentialsFor(testCase, fake))
        expect(upstream.name).toBe(testCase.name)

        const request = newRequest(testCase.parameters)
        const url = yield* upstream.authorizationUrl(request)
        setAuthorization(url)
        expect(`${url.origin}${url.pathname}`).toBe(`${fake.origin.origin}${testCase.authorize}`)
        const sent = url.searchParams
        expect(sent.get("client_id")).toBe(clientId)
        expect(sent.get("redirect_uri")).toBe(redirectUri)
        expect(sent.get("response_type")).toBe("code")
        expect(sent.get("state")).toBe(request.state)
        expect(sent.get("scope")).toBe([testCase.scope, extraScope].filter((part) => part !== "").join(" "))
        expect(sent.get("nonce")).toBe(traits.nonce ? request.nonce : null)
        expect(sent.get("code_challenge")).toBe(
          traits.pkce ? createHash("sha256").update(request.codeVerifier).digest("base64url") : null
        )
        expect(sent.get("code_challenge_method")).toBe(traits.pkce ? "S256" : null)
        for (const [name, value] of Object.entries(testCase.sentParameters ?? {}))
          expect(sent.get(name)).toBe(value)
        expect(traits.callback).toBe(testCase.name === "apple" ? "form_post" : "query")
        expect(url.href).not.toContain(clientSecret)

        const callback = new URL(redirectUri)
        callback.searchParams.set("code", `code-${testCase.name}`)
        callback.searchParams.set("state", request.state)
        for (const [name, value] of Object.entries(testCase.callback ?? {}))
          callback.searchParams.set(name, value)
        const profile = yield* upstream.exchange(callback, request)

        expect(profile.provider).toBe(testCase.name)
        expect(profile.subject).toBe(testCase.subject)
        expect(profile.email).toEqual(Option.fromNullable(testCase.email))
        expect(profile.emailVerified).toBe(testCase.emailVerified)
        expect(profile.data).toEqual(testCase.data(fake))
        expect(profile.tokens === undefined ? undefined : Redacted.value(profile.tokens.accessToken)).toBe(
          `access-${testCase.name}`
        )
        expect(Option.map(profile.tokens?.refreshToken ?? Option.none(), Redacted.value)).toEqual(
          testCase.name === "workos" ? Option.none() : Option.some(`refresh-${testCase.name}`)
        )

        const [token] = fake.sent(`POST ${testCase.token}`)
        expect(token?.form.get("grant_type")).toBe("authorization_code")
        expect(token?.form.get("code")).toBe(`code-${testCase.name}`)
        expect(token?.form.get("redirect_uri")).toBe(redirectUri)
        expect(token?.form.get("code_verifier")).toBe(traits.pkce ? request.codeVerifier : null)
        if (testCase.auth === "basic") {
          expect(token?.headers.authorization).toBe(basic)
          expect(token?.form.has("client_secret")).toBe(false)
        } else {
          expect(token?.form.get("client_id")).toBe(clientId)
          expect(token?.form.get("client_secret")).not.toBeNull()
          expect(token?.headers.authorization).toBeUndefined()
        }
        for (const call of fake.requests.filter(
          (request) => request.method === "GET" && !request.path.includes(".well-known")
        )) {
          expect(call.headers.authorization).toBe(`Bearer access-${testCase.name}`)
        }
      })
    )
  }

  const errorCases: ReadonlyArray<{
    readonly name: ProviderCatalog.ExternalProviderName
    readonly reply: FakeProvider.Reply
    readonly code: string
  }> = [
    // RFC 6749 §5.2, as Google, Spotify and most answer.
    {
      name: "google",
      reply: { status: 400, json: { error: "invalid_grant", error_description: "Bad Request" } },
      code: "invalid_grant"
    },
    // GitHub answers a bad code with HTTP 200 and an error body.
    {
      name: "github",
      reply: {
        json: {
          error: "bad_verification_code",
          error_description: "The code passed is incorrect or expired."
        }
      },
      code: "bad_verification_code"
    },
    // Slack: HTTP 200, `ok: false`.
    { name: "slack", reply: { json: { ok: false, error: "invalid_code" } }, code: "invalid_code" },
    // Facebook: an error object.
    {
      name: "facebook",
      reply: {
        status: 400,
        json: {
          error: {
            message: "This authorization code has expired.",
            type: "OAuthException",
            code: 100,
            fbtrace_id: "A1"
          }
        }
      },
      code: "OAuthException"
    },
    {
      name: "spotify",
      reply: { status: 400, json: { error: "invalid_client", error_description: "Invalid client" } },
      code: "invalid_client"
    }
  ]
  for (const { name, reply, code } of errorCases) {
    it.scoped(
      `${name}: a token endpoint error is a login failure whose message names the error, never the code`,
      () =>
        Effect.gen(function* () {
          const testCase = cases.find((candidate) => candidate.name === name)
          if (testCase === undefined) throw new Error(`no case for ${name}`)
          const { fake, setAuthorization } = yield* fakeFor(testCase, () => reply)
          const upstream = yield* ProviderCatalog.build(name, yield* credentialsFor(testCase, fake))
          const request = newRequest()
          setAuthorization(yield* upstream.authorizationUrl(request))
          const callback = new URL(redirectUri)
          callback.searchParams.set("code", "secret-code-value")
          callback.searchParams.set("state", request.state)
          const error = yield* Effect.flip(upstream.exchange(callback, request))
          expect(error).toBeInstanceOf(UpstreamLoginFailed)
          expect(error.message).toContain(`Login at ${name} failed`)
          expect(error.message).toContain(`"${code}"`)
          expect(error.message).not.toContain("secret-code-value")
          expect(error.message).not.toContain(clientSecret)
          expect(error.message).not.toContain("expired")
        })
    )
  }

  it.scoped("an API error after the exchange is a login failure naming the status only", () =>
    Effect.gen(function* () {
      const testCase = cases.find((candidate) => candidate.name === "discord")
      if (testCase === undefined) throw new Error("no discord case")
      const { fake, setAuthorization } = yield* fakeFor(testCase)
      fake.routes.set("GET /api/users/@me", () => ({
        status: 401,
        json: { message: "401: Unauthorized", code: 0 }
      }))
      const upstream = yield* ProviderCatalog.build("discord", yield* credentialsFor(testCase, fake))
      const request = newRequest()
      setAuthorization(yield* upstream.authorizationUrl(request))
      const callback = new URL(redirectUri)
      callback.searchParams.set("code", "c")
      callback.searchParams.set("state", request.state)
      const error = yield* Effect.flip(upstream.exchange(callback, request))
      expect(error.message).toBe("Reading /api/users/@me from discord failed: HTTP 401")
    })
  )

  it.scoped("a callback with another state is refused before any token request", () =>
    Effect.gen(function* () {
      const testCase = cases.find((candidate) => candidate.name === "gitlab")
      if (testCase === undefined) throw new Error("no gitlab case")
      const { fake, setAuthorization } = yield* fakeFor(testCase)
      const upstream = yield* ProviderCatalog.build("gitlab", yield* credentialsFor(testCase, fake))
      const request = newRequest()
      setAuthorization(yield* upstream.authorizationUrl(request))
      const callback = new URL(redirectUri)
      callback.searchParams.set("code", "c")
      callback.searchParams.set("state", client.randomState())
      const error = yield* Effect.flip(upstream.exchange(callback, request))
      expect(error.message).toMatch(/state/)
      expect(fake.sent("POST /oauth/token")).toHaveLength(0)
    })
  )

  it.scoped(
    "a provider at a private address, or at loopback off the allow-list, is refused uncontacted",
    () =>
      Effect.gen(function* () {
        const testCase = cases.find((candidate) => candidate.name === "gitlab")
        if (testCase === undefined) throw new Error("no gitlab case")
        const { fake } = yield* fakeFor(testCase)
        const base = { clientId, clientSecret: Redacted.make(clientSecret) }
        // The fake itself, not allow-listed; and a private address, refused before any connection.
        for (const endpointOrigin of [fake.origin, new URL("https://10.0.0.1")]) {
          const upstream = yield* ProviderCatalog.build("gitlab", { ...base, endpointOrigin })
          const request = newRequest()
          yield* upstream.authorizationUrl(request)
          const callback = new URL(redirectUri)
          callback.searchParams.set("code", "c")
          callback.searchParams.set("state", request.state)
          const error = yield* Effect.flip(upstream.exchange(callback, request))
          expect(error).toBeInstanceOf(UpstreamLoginFailed)
          expect(error.message).toMatch(/^Login at gitlab failed: the outbound guard refused the call/)
        }
        // Discovery goes through the guard as well.
        const oidc = yield* ProviderCatalog.build("oidc", { ...base, issuerUrl: fake.origin })
        const error = yield* Effect.flip(oidc.authorizationUrl(newRequest()))
        expect(error).toBeInstanceOf(UpstreamLoginFailed)
        expect(error.message).toMatch(/the outbound guard refused the call/)
        expect(fake.requests).toHaveLength(0)
      })
  )
})

describe("provider configuration", () => {
  const base = { clientId, clientSecret: Redacted.make(clientSecret) }

  it.effect("keycloak needs its realm URL; gitlab defaults to gitlab.com; azure to the common tenant", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(ProviderCatalog.build("keycloak", base))
      expect(error.message).toMatch(/realm URL/)
      const gitlab = yield* ProviderCatalog.build("gitlab", base)
      const url = yield* gitlab.authorizationUrl(newRequest())
      expect(`${url.origin}${url.pathname}`).toBe("https://gitlab.com/oauth/authorize")
      expect(ProviderCatalog.traits("keycloak").url).toBe("required")
      expect(ProviderCatalog.traits("gitlab").url).toBe("optional")
      expect(ProviderCatalog.traits("azure").url).toBe("optional")
      expect(ProviderCatalog.traits("workos").url).toBe("optional")
    })
  )

  it.effect("an instance URL in plain http off this machine is refused", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        ProviderCatalog.build("gitlab", { ...base, issuerUrl: new URL("http://gitlab.internal.example") })
      )
      expect(error.message).toMatch(/must be https/)
    })
  )

  it.effect("apple's secret must be the client secret JWT made for this client", () =>
    Effect.gen(function* () {
      const notAJwt = yield* Effect.flip(ProviderCatalog.build("apple", base))
      expect(notAJwt.message).toMatch(/client secret JWT/)
      const { privateKey } = yield* Effect.promise(() => generateKeyPair("ES256"))
      const otherClient = yield* Effect.promise(() =>
        new SignJWT({}).setProtectedHeader({ alg: "ES256" }).setSubject("another.client").sign(privateKey)
      )
      const error = yield* Effect.flip(
        ProviderCatalog.build("apple", { ...base, clientSecret: Redacted.make(otherClient) })
      )
      expect(error.message).toMatch(/client secret JWT/)
      expect(error.message).not.toContain(otherClient)
    })
  )

  it("knows the eighteen providers and oidc by the name recorded on identities", () => {
    for (const name of [...ProviderCatalog.ExternalProviderName.literals, "oidc"]) {
      expect(Option.map(ProviderCatalog.find(name), (entry) => entry.name)).toEqual(Option.some(name))
    }
    expect(ProviderCatalog.ExternalProviderName.literals).toHaveLength(18)
    expect(ProviderCatalog.find("myspace")).toEqual(Option.none())
    expect(ProviderCatalog.find("toString")).toEqual(Option.none())
    expect(ProviderCatalog.traits("workos").parameters).toMatchObject({ workos_provider: "provider" })
  })
})
