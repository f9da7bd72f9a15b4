import * as Option from "effect/Option"
import type { Passkey } from "../../../domain/auth/Passkey.js"

/**
 * A passkey as Supabase Auth's `PasskeyListItem` encodes it (`GET /passkeys`, `PATCH`, the admin
 * list): `friendly_name` and `last_used_at` left out when unset (`omitempty`).
 */
export const item = (passkey: Passkey) => ({
  id: passkey.id,
  ...(passkey.friendlyName === "" ? {} : { friendly_name: passkey.friendlyName }),
  created_at: passkey.createdAt.toISOString(),
  ...Option.match(passkey.lastUsedAt, {
    onNone: () => ({}),
    onSome: (at) => ({ last_used_at: at.toISOString() })
  })
})

/** A challenge's options answer: `{challenge_id, options, expires_at}`, the expiry in unix seconds. */
export const started = (started: {
  readonly challengeId: string
  readonly options: unknown
  readonly expiresAt: Date
}) => ({
  challenge_id: started.challengeId,
  options: started.options,
  expires_at: Math.floor(started.expiresAt.getTime() / 1000)
})
