import { createHash, randomBytes, randomUUID } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UpstreamUsers } from "../../../application/oauth/ports/UpstreamUsers.js"
import { ClientId, FamilyId, GrantId, IdentityId, SecretHash, UserId } from "../../../domain/Ids.js"
import { AccessToken } from "../../../domain/oauth/AccessToken.js"
import { AuthorizationCode } from "../../../domain/oauth/AuthorizationCode.js"
import { BrowserSession } from "../../../domain/oauth/BrowserSession.js"
import { Client } from "../../../domain/oauth/Client.js"
import { PendingConsent } from "../../../domain/oauth/PendingConsent.js"
import { PendingLogin } from "../../../domain/oauth/PendingLogin.js"
import { oauthPolicy } from "../../../domain/oauth/RefreshPolicy.js"
import * as RefreshTokenFamily from "../../../domain/RefreshTokenFamily.js"
import * as Time from "../../../domain/Time.js"

export const t0 = new Date("2026-01-01T00:00:00.000Z")

/** A plaintext secret and the hash storage keeps of it. */
export const secret = (prefix = "lkx_") => {
  const plaintext = `${prefix}${randomBytes(32).toString("base64url")}`
  return { plaintext, hash: SecretHash.make(createHash("sha256").update(plaintext).digest("hex")) }
}

export const client = (fields: Partial<ConstructorParameters<typeof Client>[0]> = {}) =>
  new Client({
    id: ClientId.make(`client-${randomUUID()}`),
    name: "Test client",
    type: "public",
    origin: "dynamic",
    redirectUris: ["http://127.0.0.1/callback"],
    secretHash: Option.none(),
    createdAt: t0,
    lastUsedAt: Option.none(),
    ...fields
  })

export const user = (now: Date = t0) =>
  Effect.flatMap(UpstreamUsers, (users) =>
    users.upsertFromUpstream(
      {
        provider: "oidc",
        subject: randomUUID(),
        email: Option.some(`${randomUUID()}@example.com`),
        emailVerified: true,
        data: { name: "Test User" }
      },
      { userId: UserId.make(randomUUID()), identityId: IdentityId.make(randomUUID()) },
      now
    )
  )

export const code = (fields: Pick<AuthorizationCode, "clientId" | "userId"> & Partial<AuthorizationCode>) =>
  new AuthorizationCode({
    hash: secret("lkc_").hash,
    grantId: GrantId.make(randomUUID()),
    redirectUri: "http://127.0.0.1/callback",
    codeChallenge: Option.none(),
    scope: Option.some("openid"),
    resource: Option.none(),
    issuedAt: t0,
    expiresAt: Time.plus(t0, "60 seconds"),
    consumedAt: Option.none(),
    ...fields
  })

export const pendingLogin = (fields: Pick<PendingLogin, "clientId"> & Partial<PendingLogin>) =>
  new PendingLogin({
    stateHash: secret("lkt_").hash,
    redirectUri: "http://127.0.0.1/callback",
    codeChallenge: Option.none(),
    clientState: Option.some("xyz"),
    scope: Option.none(),
    resource: Option.none(),
    createdAt: t0,
    expiresAt: Time.plus(t0, "10 minutes"),
    ...fields
  })

export const pendingConsent = (
  fields: Pick<PendingConsent, "clientId" | "userId"> & Partial<PendingConsent>
) =>
  new PendingConsent({
    tokenHash: secret("lkg_").hash,
    redirectUri: "http://127.0.0.1/callback",
    codeChallenge: Option.none(),
    clientState: Option.some("xyz"),
    scope: Option.some("openid"),
    resource: Option.some("https://api.example.com"),
    createdAt: t0,
    expiresAt: Time.plus(t0, "10 minutes"),
    ...fields
  })

export const browserSession = (fields: Pick<BrowserSession, "userId"> & Partial<BrowserSession>) =>
  new BrowserSession({
    tokenHash: secret("lkw_").hash,
    createdAt: t0,
    expiresAt: Time.plus(t0, "8 hours"),
    ...fields
  })

export const accessToken = (
  fields: Pick<AccessToken, "clientId" | "userId"> & Partial<AccessToken>,
  now: Date = t0
) =>
  new AccessToken({
    hash: secret("lka_").hash,
    grantId: Option.none(),
    familyId: Option.none(),
    scope: Option.none(),
    resource: Option.none(),
    issuedAt: now,
    expiresAt: Time.plus(now, "7 days"),
    revokedAt: Option.none(),
    ...fields
  })

export const family = (
  fields: { readonly clientId: ClientId; readonly userId: UserId; readonly grantId?: GrantId },
  now: Date = t0
) =>
  RefreshTokenFamily.start(
    {
      id: FamilyId.make(randomUUID()),
      userId: fields.userId,
      clientId: Option.some(fields.clientId),
      grantId: Option.fromNullable(fields.grantId),
      scope: Option.some("openid"),
      resource: Option.some("https://api.example.com")
    },
    oauthPolicy,
    now
  )
