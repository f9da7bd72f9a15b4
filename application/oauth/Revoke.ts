import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { Client } from "../../domain/oauth/Client.js"
import * as TokenKind from "../../domain/TokenKind.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import { TokenStore } from "./ports/TokenStore.js"

/**
 * POST /revoke (RFC 7009). Unknown tokens, and tokens of other clients, are answered like
 * revoked ones (§2.2), so the endpoint reveals nothing. A refresh token takes its whole family
 * and the access tokens minted with it; an access token goes alone.
 */
export const revoke = Telemetry.fn("Revoke.revoke")(
  (client: Client, token: string, hint: Option.Option<string>) =>
    Effect.gen(function* () {
      const now = new Date(yield* Clock.currentTimeMillis)
      const hash = yield* Effect.flatMap(Secrets, (secrets) => secrets.hash(Redacted.make(token)))
      const tokens = yield* TokenStore
      const revokeAccess = Effect.gen(function* () {
        const found = yield* tokens.findAccess(hash)
        if (Option.isNone(found) || found.value.clientId !== client.id) return false
        yield* tokens.revokeAccess(hash, now)
        return true
      })
      const revokeRefresh = Effect.gen(function* () {
        const found = yield* tokens.findRefresh(hash)
        if (Option.isNone(found) || !Option.contains(found.value.family.clientId, client.id)) return false
        yield* tokens.revokeFamily(found.value.family.id, now)
        return true
      })
      const kind = TokenKind.kindOf(token)
      if (kind === "access") return yield* revokeAccess
      if (kind === "refresh") return yield* revokeRefresh
      // No prefix: follow the hint first, then the other kind (RFC 7009 §2.1).
      return Option.contains(hint, "refresh_token")
        ? (yield* revokeRefresh) || (yield* revokeAccess)
        : (yield* revokeAccess) || (yield* revokeRefresh)
    }),
  (client) => ({ "client.id": client.id })
)
