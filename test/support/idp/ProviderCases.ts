import { createHmac } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { generateKeyPair, SignJWT } from "jose"
import type * as ProviderCatalog from "../../../adapters/idp/ProviderCatalog.js"
import type { Credentials } from "../../../adapters/idp/ProviderEntry.js"
import * as Allowed from "../outbound/Allowed.js"
import * as FakeProvider from "./FakeProvider.js"

/**
 * Every OAuth 2.0 provider of the catalog as a local fake plays it: the routes it answers, its
 * token response, what comes back to our callback, and the profile and identity data that must
 * come out. The adapter tests run these against each provider's adapter; the end-to-end test
 * runs them through the auth service over HTTP. Twitter (OAuth 1.0a) has its own fake.
 */

export const clientId = "client-123"
export const clientSecret = "secret-456"

/** Apple's client secret: a JWT signed (ES256) with the team's key, for the services id. */
export const appleSecret = Effect.promise(async () => {
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

export interface Flow {
  readonly fake: FakeProvider.FakeProvider
  /** The authorization URL the provider built, once built. */
  readonly authorization: () => URL
}

export interface Case {
  readonly name: ProviderCatalog.ExternalProviderName
  /** Credentials beyond the client's: the `issuerUrl` is what `EXTERNAL_<X>_URL` configures. */
  readonly credentials?: (fake: FakeProvider.FakeProvider) => Partial<Credentials>
  /** The paths of the authorization and token endpoints, and the scope the provider is asked for. */
  readonly authorize: string
  readonly scope: string
  readonly token: string
  readonly auth: "basic" | "post"
  /** The token response beyond access and refresh token (an ID token, WorkOS's profile…). */
  readonly tokenReply?: (flow: Flow) => Promise<Record<string, unknown>>
  readonly routes?: (flow: Flow) => Readonly<Record<string, FakeProvider.Route>>
  /** Sign-in parameters passed along, by the provider's own names for them. */
  readonly parameters?: Readonly<Record<string, string>>
  /** What the provider sends back to our callback beyond the code and the state. */
  readonly callback?: Readonly<Record<string, string>>
  /** The parameters the authorization URL must carry beyond the standard ones. */
  readonly sentParameters?: Readonly<Record<string, string>>
  readonly subject: string
  readonly email: string | undefined
  readonly emailVerified: boolean
  readonly data: (fake: FakeProvider.FakeProvider) => Record<string, unknown>
}

/** An ID token as the provider issues it, bound to the nonce of the authorization URL if any. */
export const idToken = (flow: Flow, issuer: string, claims: Record<string, unknown>) => {
  const nonce = flow.authorization().searchParams.get("nonce")
  return flow.fake.idToken({ iss: issuer, aud: clientId, ...claims, ...(nonce === null ? {} : { nonce }) })
}

export const json =
  (body: unknown): FakeProvider.Route =>
  () => ({ json: body })

/** LinkedIn's OpenID sign-in under `name`, for a member of its own. */
const linkedinCase = (name: "linkedin" | "linkedin_oidc", subject: string, email: string): Case => ({
  name,
  authorize: "/oauth/v2/authorization",
  scope: "openid profile email",
  token: "/oauth/v2/accessToken",
  auth: "post",
  tokenReply: async (flow) => ({
    id_token: await idToken(flow, "https://www.linkedin.com/oauth", {
      sub: subject,
      email,
      email_verified: "true",
      given_name: "Linked",
      family_name: "In",
      locale: "en_US",
      picture: "https://linkedin.example/p.jpg"
    })
  }),
  subject,
  email,
  emailVerified: true,
  data: () => ({
    iss: "https://www.linkedin.com/oauth",
    sub: subject,
    provider_id: subject,
    name: "Linked In",
    given_name: "Linked",
    family_name: "In",
    locale: "en_US",
    picture: "https://linkedin.example/p.jpg",
    email,
    email_verified: true,
    phone_verified: false
  })
})

/** Sign in with Slack under `name`, for a member of its own. */
const slackCase = (name: "slack" | "slack_oidc", subject: string, email: string): Case => ({
  name,
  authorize: "/openid/connect/authorize",
  scope: "openid profile email",
  token: "/api/openid.connect.token",
  auth: "post",
  tokenReply: async (flow) => ({
    ok: true,
    token_type: "Bearer",
    id_token: await idToken(flow, "https://slack.com", {
      sub: subject,
      "https://slack.com/user_id": subject,
      "https://slack.com/team_id": "T0R7GR",
      email,
      email_verified: true,
      name: "Sla Ck",
      picture: "https://slack.example/p.png"
    })
  }),
  subject,
  email,
  emailVerified: true,
  data: () => ({
    iss: "https://slack.com/api",
    sub: subject,
    provider_id: subject,
    name: "Sla Ck",
    full_name: "Sla Ck",
    picture: "https://slack.example/p.png",
    avatar_url: "https://slack.example/p.png",
    custom_claims: { "https://slack.com/team_id": "T0R7GR" },
    email,
    email_verified: true,
    phone_verified: false
  })
})

export const cases: ReadonlyArray<Case> = [
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
    name: "fly",
    authorize: "/oauth/authorize",
    scope: "read",
    token: "/oauth/token",
    auth: "basic",
    routes: () => ({
      "GET /oauth/token/info": json({
        resource_owner_id: "ro-1",
        user_id: "fly-user-1",
        user_name: "Fly Er",
        email: "fly@example.com",
        organizations: [{ id: "org-1", role: "admin" }],
        scope: ["read"],
        application: { uid: "app-1" },
        expires_in: 7200,
        created_at: 1732000000
      })
    }),
    subject: "fly-user-1",
    email: "fly@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://api.fly.io",
      sub: "fly-user-1",
      provider_id: "fly-user-1",
      full_name: "Fly Er",
      custom_claims: {
        resource_owner_id: "ro-1",
        organizations: [{ id: "org-1", role: "admin" }],
        application: { uid: "app-1" },
        scope: ["read"],
        created_at: 1732000000
      },
      email: "fly@example.com",
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
    name: "kakao",
    authorize: "/oauth/authorize",
    scope: "account_email profile_image profile_nickname",
    token: "/oauth/token",
    auth: "post",
    routes: () => ({
      "GET /v2/user/me": json({
        id: 2_834_512_991,
        connected_at: "2026-11-01T00:00:00Z",
        kakao_account: {
          profile: { nickname: "Ka Kao", profile_image_url: "https://kakao.example/p.jpg" },
          email: "kakao@example.com",
          is_email_valid: true,
          is_email_verified: true
        }
      })
    }),
    subject: "2834512991",
    email: "kakao@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://kapi.kakao.com",
      sub: "2834512991",
      provider_id: "2834512991",
      name: "Ka Kao",
      full_name: "Ka Kao",
      preferred_username: "Ka Kao",
      user_name: "Ka Kao",
      avatar_url: "https://kakao.example/p.jpg",
      email: "kakao@example.com",
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
  linkedinCase("linkedin", "li-782bbtaQ", "linked@example.com"),
  linkedinCase("linkedin_oidc", "li-9oidcXz", "linked-oidc@example.com"),
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
  slackCase("slack", "U0R7JM", "slack@example.com"),
  slackCase("slack_oidc", "U0OIDC", "slack-oidc@example.com"),
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
  },
  {
    name: "x",
    authorize: "/i/oauth2/authorize",
    scope: "users.email tweet.read users.read offline.access",
    token: "/2/oauth2/token",
    auth: "basic",
    routes: () => ({
      "GET /2/users/me": (request) =>
        request.query.get("user.fields") ===
        "id,name,username,confirmed_email,profile_image_url,url,created_at"
          ? {
              json: {
                data: {
                  id: "1460000000000000000",
                  name: "Ex Ample",
                  username: "example",
                  confirmed_email: "x@example.com",
                  profile_image_url: "https://x.example/p.jpg",
                  url: "https://example.com",
                  created_at: "2021-11-15T00:00:00.000Z"
                }
              }
            }
          : { status: 400, json: { title: "Invalid Request" } }
    }),
    subject: "1460000000000000000",
    email: "x@example.com",
    emailVerified: true,
    data: () => ({
      iss: "https://api.x.com",
      sub: "1460000000000000000",
      provider_id: "1460000000000000000",
      name: "Ex Ample",
      full_name: "Ex Ample",
      preferred_username: "example",
      user_name: "example",
      picture: "https://x.example/p.jpg",
      avatar_url: "https://x.example/p.jpg",
      profile: "https://x.com/example",
      website: "https://example.com",
      custom_claims: { created_at: "2021-11-15T00:00:00.000Z" },
      email: "x@example.com",
      email_verified: true,
      phone_verified: false
    })
  },
  {
    name: "zoom",
    authorize: "/oauth/authorize",
    scope: "",
    token: "/oauth/token",
    auth: "basic",
    routes: () => ({
      "GET /v2/users/me": json({
        id: "zoom-KDcuGIm1QgePTO8WbOqwIQ",
        first_name: "Zo",
        last_name: "Om",
        email: "zoom@example.com",
        // Signed in to Zoom with the address and a password, which Zoom has not verified.
        login_type: "100",
        verified: 0,
        pic_url: "https://zoom.example/p.jpg"
      })
    }),
    subject: "zoom-KDcuGIm1QgePTO8WbOqwIQ",
    email: "zoom@example.com",
    emailVerified: false,
    data: () => ({
      iss: "https://api.zoom.us/v2",
      sub: "zoom-KDcuGIm1QgePTO8WbOqwIQ",
      provider_id: "zoom-KDcuGIm1QgePTO8WbOqwIQ",
      name: "Zo Om",
      full_name: "Zo Om",
      picture: "https://zoom.example/p.jpg",
      avatar_url: "https://zoom.example/p.jpg",
      email: "zoom@example.com",
      email_verified: false,
      phone_verified: false
    })
  }
]

/**
 * GitHub at a GitHub Enterprise Server (`EXTERNAL_GITHUB_URL`), its REST API under `/api/v3`:
 * a second GitHub case, kept out of `cases`, which holds one per provider key.
 */
export const githubEnterprise: Case = {
  name: "github",
  // A GitHub Enterprise Server: EXTERNAL_GITHUB_URL, its REST API under /api/v3.
  credentials: (fake) => ({ issuerUrl: new URL("/", fake.origin) }),
  authorize: "/login/oauth/authorize",
  scope: "read:user user:email",
  token: "/login/oauth/access_token",
  auth: "post",
  routes: () => ({
    "GET /api/v3/user": json({ id: 17, login: "hubber", name: null }),
    "GET /api/v3/user/emails": json([{ email: "hubber@corp.example", primary: true, verified: true }])
  }),
  subject: "17",
  email: "hubber@corp.example",
  emailVerified: true,
  data: (fake) => ({
    iss: new URL("/api/v3", fake.origin).href,
    sub: "17",
    provider_id: "17",
    preferred_username: "hubber",
    user_name: "hubber",
    email: "hubber@corp.example",
    email_verified: true,
    phone_verified: false
  })
}

/**
 * The provider tokens each fake's token endpoint hands out: WorkOS's case takes the refresh
 * token out of its reply, as WorkOS gives none.
 */
export const providerTokens = (testCase: Case) => ({
  access: `access-${testCase.name}`,
  refresh: testCase.name === "workos" ? undefined : `refresh-${testCase.name}`
})

/** The client secret the provider is configured with: Apple's is a JWT made for the client. */
export const secretFor = (testCase: Case) =>
  testCase.name === "apple" ? appleSecret : Effect.succeed(clientSecret)

/** The credentials an adapter is built with to call the fake, allow-listed on loopback. */
export const credentialsFor = (testCase: Case, fake: FakeProvider.FakeProvider) =>
  Effect.map(secretFor(testCase), (secret) => ({
    clientId,
    clientSecret: Redacted.make(secret),
    endpointOrigin: fake.origin,
    allowedPrivateAddresses: Allowed.localhost,
    ...testCase.credentials?.(fake)
  }))

/** Starts the fake with the case's routes and a token endpoint answering as the provider does. */
export const fakeFor = (testCase: Case, tokenRoute?: FakeProvider.Route) =>
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
            access_token: providerTokens(testCase).access,
            token_type: "bearer",
            refresh_token: `refresh-${testCase.name}`,
            ...(await testCase.tokenReply?.(flow))
          }
        }))
    )
    return { fake, flow, setAuthorization: (url: URL) => (authorization = url) }
  })
