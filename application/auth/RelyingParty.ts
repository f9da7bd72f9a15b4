import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { userHandleOf } from "../../domain/auth/WebAuthnCeremony.js"
import type { User } from "../../domain/User.js"
import { MfaSettings } from "./MfaSettings.js"
import type { Expected } from "./ports/WebAuthnCeremonies.js"

/**
 * The relying party of every WebAuthn ceremony, passkeys' and WebAuthn factors' alike. The start
 * refuses either switched on without one (`WEBAUTHN_RP_ID`, as Supabase Auth's
 * `WebAuthnConfiguration.Validate`), so its absence here is a wiring fault.
 */
export const relyingParty = Effect.flatMap(MfaSettings, (mfa) =>
  Option.match(mfa.relyingParty, {
    onNone: () => Effect.dieMessage("a WebAuthn ceremony without a relying party (WEBAUTHN_RP_ID)"),
    onSome: Effect.succeed
  })
)

/** Where a ceremony's answer must come from: the relying party id and `WEBAUTHN_RP_ORIGINS`. */
export const expected = Effect.map(
  relyingParty,
  (party): Expected => ({ relyingPartyId: party.id, origins: party.origins })
)

/**
 * The user a new credential is made for, as authenticators show it: the user handle (the user
 * id), the name — the address, else the number, as Supabase Auth's `WebAuthnName`, else the id,
 * as a browser refuses a blank name — and the display name, `user_metadata.name` when a
 * non-empty text, else the name.
 */
export const credentialUserOf = (user: User) => {
  const name = Option.getOrElse(
    Option.orElse(user.email, () => user.phone),
    () => user.id
  )
  const metadataName = user.userMetadata.name
  return {
    handle: userHandleOf(user.id),
    name,
    displayName: typeof metadataName === "string" && metadataName !== "" ? metadataName : name
  }
}
