import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { ClientId, SecretHash, UserId } from "../../domain/Ids.js"
import * as AccessToken from "../../domain/oauth/AccessToken.js"
import * as RefreshTokenFamily from "../../domain/RefreshTokenFamily.js"
import * as TokenKind from "../../domain/TokenKind.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import { OAuthSettings } from "./OAuthSettings.js"
import { TokenStore } from "./ports/TokenStore.js"

/**
 * What a resource server may learn about a token it was shown (RFC 7662 §2.2; the HTTP adapter
 * gives the fields their wire names). Inactive tokens reveal nothing but that.
 */
export type Introspection =
  | { readonly active: false }
  | {
      readonly active: true
      readonly kind: "access" | "refresh"
      readonly clientId: ClientId
      readonly userId: UserId
      readonly scope: Option.Option<string>
      /** RFC 8707: the resource the token is bound to, its audience. */
      readonly resource: Option.Option<string>
      readonly issuer: string
      readonly issuedAt: Date
      readonly expiresAt: Date
    }

const inactive: Introspection = { active: false }

/** POST /introspect: what a resource server may know about a token it was shown. */
export const introspect = Telemetry.fn("Introspect.introspect")(
  (token: string, hint: Option.Option<string>) =>
    Effect.gen(function* () {
      const settings = yield* OAuthSettings
      const now = new Date(yield* Clock.currentTimeMillis)
      const hash: SecretHash = yield* Effect.flatMap(Secrets, (secrets) => secrets.hash(Redacted.make(token)))
      const tokens = yield* TokenStore
      // The prefix names the kind; the hint only orders the look-ups of unprefixed tokens.
      const kind = TokenKind.kindOf(token) ?? (Option.contains(hint, "refresh_token") ? "refresh" : "access")
      if (kind === "access") {
        const found = yield* tokens.findAccess(hash)
        if (Option.isNone(found) || !AccessToken.isActive(found.value, now)) return inactive
        const access = found.value
        return {
          active: true,
          kind: "access",
          clientId: access.clientId,
          userId: access.userId,
          scope: access.scope,
          resource: access.resource,
          issuer: settings.issuer,
          issuedAt: access.issuedAt,
          expiresAt: access.expiresAt
        } satisfies Introspection
      }
      if (kind !== "refresh") return inactive
      const found = yield* tokens.findRefresh(hash)
      if (Option.isNone(found)) return inactive
      const { family, generation } = found.value
      if (!RefreshTokenFamily.isLive(family, generation, now) || Option.isNone(family.clientId))
        return inactive
      return {
        active: true,
        kind: "refresh",
        clientId: family.clientId.value,
        userId: family.userId,
        scope: family.scope,
        resource: family.resource,
        issuer: settings.issuer,
        issuedAt: family.rotatedAt,
        expiresAt: Option.getOrElse(family.expiresAt, () => now)
      } satisfies Introspection
    })
)
