import { Clock, Effect, Option, Redacted } from "effect"
import type { SecretHash } from "../../domain/Ids.js"
import * as RefreshTokenFamily from "../../domain/RefreshTokenFamily.js"
import * as TokenKind from "../../domain/TokenKind.js"
import * as UserToken from "../../domain/UserToken.js"
import { SecretHasher } from "../ports/SecretHasher.js"
import { TokenStore } from "../ports/TokenStore.js"
import * as Tracing from "../Tracing.js"
import { OAuthSettings } from "./OAuthSettings.js"

/** RFC 7662 §2.2. Inactive tokens reveal nothing but `active: false`. */
export type Introspection =
  | { readonly active: false }
  | {
      readonly active: true
      readonly client_id: string
      readonly sub: string
      readonly scope?: string
      readonly aud?: string
      readonly iss: string
      readonly exp: number
      readonly iat: number
      readonly token_type: "Bearer" | "refresh_token"
    }

const seconds = (date: Date) => Math.floor(date.getTime() / 1000)
const inactive: Introspection = { active: false }

/** POST /introspect: what a resource server may know about a token it was shown. */
export const introspect = (token: string, hint: Option.Option<string>) =>
  Effect.gen(function* () {
    const settings = yield* OAuthSettings
    const now = new Date(yield* Clock.currentTimeMillis)
    const hash: SecretHash = yield* Effect.flatMap(SecretHasher, (hasher) =>
      hasher.hash(Redacted.make(token))
    )
    const tokens = yield* TokenStore
    // The prefix names the kind; the hint only orders the look-ups of unprefixed tokens.
    const kind = TokenKind.kindOf(token) ?? (Option.contains(hint, "refresh_token") ? "refresh" : "access")
    if (kind === "access") {
      const found = yield* tokens.findAccess(hash)
      if (Option.isNone(found) || !UserToken.isActive(found.value, now)) return inactive
      const access = found.value
      return {
        active: true,
        client_id: access.clientId,
        sub: access.userId,
        ...Option.match(access.scope, { onNone: () => ({}), onSome: (scope) => ({ scope }) }),
        ...Option.match(access.resource, { onNone: () => ({}), onSome: (aud) => ({ aud }) }),
        iss: settings.issuer,
        exp: seconds(access.expiresAt),
        iat: seconds(access.issuedAt),
        token_type: "Bearer"
      } satisfies Introspection
    }
    if (kind !== "refresh") return inactive
    const found = yield* tokens.findRefresh(hash)
    if (Option.isNone(found)) return inactive
    const { family, generation } = found.value
    if (!RefreshTokenFamily.isLive(family, generation, now) || Option.isNone(family.clientId)) return inactive
    return {
      active: true,
      client_id: family.clientId.value,
      sub: family.userId,
      ...Option.match(family.scope, { onNone: () => ({}), onSome: (scope) => ({ scope }) }),
      ...Option.match(family.resource, { onNone: () => ({}), onSome: (aud) => ({ aud }) }),
      iss: settings.issuer,
      exp: seconds(Option.getOrElse(family.expiresAt, () => now)),
      iat: seconds(family.rotatedAt),
      token_type: "refresh_token"
    } satisfies Introspection
  }).pipe(Tracing.span("Introspect.introspect", { captureStackTrace: false }))
